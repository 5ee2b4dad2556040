"""Save and open workspaces from the window: File > Save workspace (Ctrl+S), Save workspace as
(Ctrl+Shift+S), Open workspace (Ctrl+Alt+O; Ctrl+O opens a model folder).

What is kept (``lm_workbench.workspace.format``): the model by its spec (course
models as ``course:<family>``, so another machine opens its own copy), the
text box and pair, model B while two models are compared (its spec, the
same way), the current view, each view's own state (what its
``preset_state`` returns: settings, and a corpus's lines) and the running
lecture preset with its step. Opening restores them in that order and says
in the message bar what it could not. It gets a ``WorkspaceServices``
(``lm_workbench.ui.workspace.services``: the views, the models, the text box, the notifier), not the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.availability import installed_course_models
from lm_workbench.lectures.schema import parse_preset
from lm_workbench.workspace.format import SUFFIX, Workspace, open_workspace, save_workspace
from lm_workbench.workspace.models import local_spec, portable_spec
from lm_workbench.ui.view_kit.window_action import window_action

if TYPE_CHECKING:
    from lm_workbench.ui.workspace.services import WorkspaceServices

SOURCE = "workspace"
FILTER = f"Workspaces (*{SUFFIX})"


class WorkspaceController(QObject):
    def __init__(self, services: WorkspaceServices):
        super().__init__(services.owner)
        self.services = services
        self.path: Path | None = None  # the file this session was last saved to or opened from
        self.save_action = self._action("&Save workspace", "Ctrl+S", lambda: self.save())
        self.save_as_action = self._action("Save workspace &as…", "Ctrl+Shift+S", lambda: self.save(ask=True))
        self.open_action = self._action("Open &workspace…", "Ctrl+Alt+O", lambda: self.open())

    def _action(self, text: str, shortcut: str, slot: Any) -> QAction:
        return window_action(self.services.owner, text, shortcut, slot)

    def install_menu(self, file_menu: Any) -> None:
        """The three actions at the top of the File menu, above a separator."""
        first = file_menu.actions()[0] if file_menu.actions() else None
        for action in (self.open_action, self.save_action, self.save_as_action):
            file_menu.insertAction(first, action)
        file_menu.insertSeparator(first)

    # ---------------------------------------------------------------- save
    def collect(self) -> Workspace:
        s = self.services
        ws = Workspace(text=s.text.text(), pair=s.text.pair())
        loaded = s.models.loaded()
        if loaded is not None:
            ws.model = portable_spec(loaded.info.spec, loaded.info.folder, installed_course_models())
        model_b = s.models.model_b()
        if model_b is not None:
            ws.model_b = portable_spec(model_b.info.spec, model_b.info.folder, installed_course_models())
        current = s.views.current_entry()
        ws.current_view = current.id if current is not None else None
        for entry in s.views.entries():
            state = s.views.preset_state(entry.id)
            if state is not None:
                ws.views[entry.id] = {"settings": state[0], "inputs": state[1]}
        runner = s.runner
        if runner.active:
            ws.preset = {"name": runner.preset.name, "step": runner.index, "definition": runner.preset.to_dict()}
        return ws

    def save(self, path: str | Path | None = None, *, ask: bool = False) -> Path | None:
        if path is None:
            path = self.path
        if path is None or ask:
            start = str(path or Path.home() / f"workspace{SUFFIX}")
            chosen, _ = QFileDialog.getSaveFileName(self.services.owner, "Save workspace", start, FILTER)
            if not chosen:
                return None
            path = chosen if chosen.endswith(SUFFIX) else chosen + SUFFIX
        try:
            saved = save_workspace(self.collect(), path)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return None
        self._remember(saved)
        self.services.notifier.status(f"Saved the workspace to {saved}")
        return saved

    def _remember(self, path: Path) -> None:
        self.path = Path(path)
        self.services.settings.add_recent_workspace(str(path))

    # ---------------------------------------------------------------- open
    def open(self, path: str | Path | None = None) -> Workspace | None:
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self.services.owner, "Open workspace", str(Path.home()), FILTER)
            if not chosen:
                return None
            path = chosen
        try:
            ws = open_workspace(path)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return None
        problems = list(ws.problems) + self.restore(ws)
        self._remember(Path(path))
        s = self.services
        if problems:
            s.notifier.show_message(f"Opened {Path(path).name}, but not all of it: " + "; ".join(problems),
                                    "warning", SOURCE)
        else:
            s.notifier.clear(SOURCE)
            s.notifier.status(f"Opened the workspace {Path(path).name}")
        return ws

    def restore(self, ws: Workspace) -> list[str]:
        """Put the workspace into the window; what could not be restored, as messages."""
        s, problems = self.services, []
        course = installed_course_models()
        s.runner.stop()
        s.text.set_text(ws.text, ws.pair)
        if ws.model:
            spec, problem = local_spec(ws.model, course)
            loaded = s.models.loaded()
            if problem:
                problems.append(problem)
            elif loaded is None or spec not in (loaded.info.spec, loaded.info.folder):
                s.models.load(spec)
        problems += self._restore_model_b(ws.model_b, course)
        ids = {e.id: e for e in s.views.entries()}
        for view_id, state in ws.views.items():
            entry = ids.get(view_id)
            if entry is None:
                problems.append(f"the {view_id!r} view is not in this version, its state was left out")
                continue
            settings = dict(state.get("settings") or {})
            unknown = sorted(set(settings) - entry.preset_settings)
            if unknown:
                problems.append(f"{view_id}: left out {', '.join(unknown)} (not known to this version)")
            try:
                s.views.apply_preset_step(view_id, {k: v for k, v in settings.items() if k not in unknown},
                                    dict(state.get("inputs") or {}))
            except (WorkbenchError, ValueError, TypeError, KeyError) as exc:
                problems.append(f"{view_id}: could not restore its state ({exc})")
        if ws.preset and isinstance(ws.preset.get("definition"), dict):
            try:
                preset = parse_preset(ws.preset["definition"], f"the workspace's preset {ws.preset.get('name')}")
                if not s.resume_lecture(preset, int(ws.preset.get("step", 0))):
                    problems.append(f"the lecture {preset.title!r} cannot run here")
            except (WorkbenchError, ValueError) as exc:
                problems.append(str(exc))
        if ws.current_view in ids:
            s.views.show_view(ws.current_view)
        elif ws.current_view:
            problems.append(f"the {ws.current_view!r} view is not in this version")
        return problems

    def _restore_model_b(self, spec: str | None, course: dict[str, str]) -> list[str]:
        """Compare with the workspace's model B (after model A's load), or stop comparing when it has none."""
        s = self.services
        if spec is None:
            s.models.stop_comparing()
            return []
        local, problem = local_spec(spec, course)
        if problem:
            return [problem.replace("the workspace's model", "the workspace's model B", 1)]
        b = s.models.model_b()
        if b is None or local not in (b.info.spec, b.info.folder):
            s.models.compare_with(local)
        return []

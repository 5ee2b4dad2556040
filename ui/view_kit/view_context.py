"""What a view may use of the window: the narrow ``ViewContext`` every view factory receives.

A view never sees the window. Its context offers the loaded model and its
changes (and model B, ``model_b``, when comparing two models), the settings, jobs with progress, partial results and cancel
(``ctx.jobs``, a ``lm_workbench.ui.view_kit.view_task_runner.ViewJobs`` of its own), messages and the
status line, opening or registering a model, the long-run services (one
lane, the run store) and, for views that declare the ``text`` input, the
text box. ``Shell`` is the window's side of that contract: the few callables
the window hands to the view host, so the host does not reach into it either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QObject, Signal

from lm_workbench.ui.view_kit.forwarded import forwarded
from lm_workbench.ui.view_kit.view_identity import ViewIdentity
from lm_workbench.ui.view_kit.view_task_runner import ViewJobs

if TYPE_CHECKING:
    from lm_workbench.ui.view_kit.job_bridge import JobBridge
    from lm_workbench.settings import Settings


@dataclass(frozen=True)
class Shell:
    """The window's services, as plain callables (the window builds one; tests may build their own)."""

    bridge: JobBridge
    settings: Settings
    loaded: Callable[[], Any]  # the LoadedModel, or None
    run_services: Any  # lm_workbench.ui.run_tracking.run_services.RunServices
    show_error: Callable[[BaseException, str, str], None]  # error, traceback ("" for a WorkbenchError), source
    show_message: Callable[[str, str, str], None]  # text, level (info | warning | error), source
    clear_message: Callable[[str], None]  # source
    status: Callable[..., None]  # (text, view id or None): a view's message shows while its tab is current
    open_model: Callable[[str], None]  # load a model spec and show its views
    register_model: Callable[[str], None]  # add a model folder to the recent models
    text: Callable[[], str]
    set_text: Callable[[str], None]
    persist: bool = True  # settings changes are saved (False in tests)
    clicker: Any = None  # the window's lm_workbench.clicker.Clicker (Next/Previous), if any
    model_b: Callable[[], Any] = lambda: None  # model B (a LoadedModel) shown beside A, or None
    compare_with: Callable[[str], None] = lambda spec: None  # load a spec as model B
    tokenized: Callable[[], Any] = lambda: None  # the text box's TokenizedText with the loaded model, or None
    course_models: Any = None  # the window's lm_workbench.ui.window.course_part.CoursePart (its builder, dialog)


class ViewContext(QObject):
    """One view's window services; see the module docstring."""

    model_changed = Signal(object)  # the newly loaded LoadedModel
    tokens_changed = Signal(object)  # the text box's TokenizedText, or a hint (str) when there are none
    model_b_changed = Signal(object)  # model B (a LoadedModel) was loaded, or None: no longer comparing

    def __init__(self, shell: Shell, entry: ViewIdentity, parent: QObject | None = None):
        super().__init__(parent)
        self._shell = shell
        self.entry = entry
        self.jobs = ViewJobs(shell.bridge, entry.id, status=lambda text: shell.status(text, entry.id),
                             on_unhandled_error=lambda exc, tb: shell.show_error(exc, tb, entry.id), parent=self)

    # --------------------------------------------------------------- model
    @property
    def loaded(self) -> Any:
        """The loaded model (``lm_workbench.engine.models.loading.LoadedModel``), or None."""
        return self._shell.loaded()

    def model_spec(self) -> str:
        loaded = self.loaded
        return loaded.info.spec if loaded is not None else "no-model"

    def open_model(self, spec: str) -> None:
        self._shell.open_model(spec)

    @property
    def model_b(self) -> Any:
        """Model B (a ``LoadedModel``) that views show beside the loaded model on the same text, or None."""
        return self._shell.model_b()

    def compare_with(self, spec: str) -> None:
        """Load ``spec`` as model B (a run's output: "Compare with this")."""
        self._shell.compare_with(spec)

    def register_model(self, folder: str) -> None:
        self._shell.register_model(folder)

    # ------------------------------------------------------------ services
    settings = forwarded("_shell.settings", "The window's ``Settings``.")
    persist = forwarded("_shell.persist", "Whether settings changes are saved (False in tests).")
    run_services = forwarded("_shell.run_services", "The long-run services (one lane, the run store).")
    course_models = forwarded("_shell.course_models",
                              "The window's course models (``CoursePart``: ``builder``, ``open_dialog``), or None.")
    clicker = forwarded("_shell.clicker",
                        "The window's ``Clicker``: push a stepper to get Next/Previous (PageDown/PageUp); may be None.")

    # ------------------------------------------------------------ messages
    def show_error(self, exc: BaseException, tb: str = "") -> None:
        """A ``WorkbenchError`` as its one line, anything else as an unexpected error (in the message bar)."""
        self._shell.show_error(exc, tb, self.entry.id)

    def show_message(self, text: str, level: str = "info") -> None:
        self._shell.show_message(text, level, self.entry.id)

    def clear_message(self) -> None:
        self._shell.clear_message(self.entry.id)

    def status(self, text: str) -> None:
        self._shell.status(text, self.entry.id)

    # ------------------------------------------------------------ text box
    def current_text(self) -> str:
        return self._shell.text() if self.entry.reads_text() else ""

    def set_text(self, text: str) -> None:
        """Put ``text`` in the text box (views that read it only); the usual pause-then-compute follows."""
        if not self.entry.reads_text():
            raise RuntimeError(f"view {self.entry.id!r} does not declare the text input")
        self._shell.set_text(text)

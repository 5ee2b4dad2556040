"""What the window's own parts may use of it: one small, named services object per part, never the window.

Views get a ``ViewContext`` (``ui.view_kit.view_context``); the window's menus and actions, the lecture
controller, the start page and the workspace controller get these. Each field is what that part calls on
the window, as a plain callable or one of the window's widgets/objects it works with (the About panel, the
message bar, the text box). The window builds them (``MainWindow``); a test can build its own. Callables
that reach a part built later (the start page's "open workspace") are late-bound lambdas, so the order in
which the window builds its parts does not matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMenuBar, QWidget

    from ui.window.about_panel import AboutPanel
    from ui.window.presentation import PresentationMode
    from ui.window.text_input import TextInputPanel
    from ui.view_kit.view_entry import ViewEntry
    from ui.widgets.message_bar import MessageBar
    from workbench.lectures.runner import PresetRunner
    from workbench.lectures.schema import Preset
    from workbench.settings import Settings
    from workbench.steps import StepController


@dataclass(frozen=True)
class ActionServices:
    """For ``build_actions``: the menus, shortcuts and what each action does."""

    owner: QWidget  # the actions are added to it, so their shortcuts work with the menu bar hidden
    menu_bar: QMenuBar
    open_folder: Callable[[], None]
    focus_model: Callable[[], None]
    open_text_file: Callable[[], Any]
    show_plugins: Callable[[], None]
    load_model: Callable[[str], None]
    export_view: Callable[[], Any]
    copy_view_picture: Callable[[], Any]
    copy_tokens: Callable[[], None]
    quit: Callable[[], Any]
    cancel_job: Callable[[], None]
    show_view: Callable[[str], None]
    dock_action: QAction  # shows or hides the model dock
    about: AboutPanel
    presentation: PresentationMode
    steps: StepController


@dataclass(frozen=True)
class LectureServices:
    """For the ``LectureController``: stepping through a preset's views, texts, models and settings."""

    owner: QWidget  # parent of its actions and dialogs
    next_action: QAction  # the window's Next/Previous (PageDown/PageUp)
    previous_action: QAction
    about: AboutPanel  # folded away while a lecture runs
    steps: StepController
    entries: Callable[[], list[ViewEntry]]
    show_view: Callable[[str], None]
    apply_preset_step: Callable[[str, dict[str, Any], dict[str, Any]], None]
    text_input: TextInputPanel
    settings: Settings
    loaded: Callable[[], Any]  # the LoadedModel, or None
    loading: Callable[[], bool]
    load_model: Callable[[str], None]
    model_ready: SignalInstance  # emits the LoadedModel when a load finishes
    message_bar: MessageBar
    show_error: Callable[..., None]  # (exc, tb="", *, source=None)
    open_workspace: Callable[..., Any]  # (path=None): open a workspace file, asking for one when None


@dataclass(frozen=True)
class StartPageServices:
    """For the ``StartPage``: the presets with their status, the recent workspaces, and opening either."""

    presets: list[Preset]
    status: Callable[[Preset], Any]  # -> workbench.lectures.availability.PresetStatus
    start: Callable[[Preset], bool]
    open_preset_file: Callable[[], bool]
    recent_workspaces: list[str]
    open_workspace: Callable[..., Any]  # (path=None): open a workspace file, asking for one when None


@dataclass(frozen=True)
class WorkspaceServices:
    """For the ``WorkspaceController``: what a workspace keeps and how it is put back."""

    owner: QWidget  # parent of its actions and file dialogs
    entries: Callable[[], list[ViewEntry]]
    current_entry: Callable[[], ViewEntry | None]
    show_view: Callable[[str], None]
    preset_state: Callable[[str], tuple[dict[str, Any], dict[str, Any]] | None]
    apply_preset_step: Callable[[str, dict[str, Any], dict[str, Any]], None]
    text_input: TextInputPanel
    settings: Settings
    loaded: Callable[[], Any]
    load_model: Callable[[str], None]
    runner: PresetRunner  # the lecture that runs, kept in the workspace
    resume_lecture: Callable[[Preset, int], bool]
    message_bar: MessageBar
    show_error: Callable[..., None]
    status: Callable[[str], None]
    compared: Callable[[], Any] = lambda: None  # model B (a LoadedModel), or None
    compare_with: Callable[[str], None] = lambda _spec: None  # load model B (after A's load)
    stop_comparing: Callable[[], None] = lambda: None

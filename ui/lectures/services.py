"""What the lecture parts get of the window: the shared interfaces (``lm_workbench.ui.view_kit.window_parts``) and what is
theirs alone (the window's Next/Previous actions, the About panel's folding), never the window or its widgets.
The window builds them (``lm_workbench.ui.window.main_window``); a test can build its own. ``owner`` is only the parent of a
part's actions and dialogs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    from lm_workbench.ui.view_kit.window_parts import LoadedModels, Notifier, TextBox, ViewDriver
    from lm_workbench.lectures.schema import Preset
    from lm_workbench.settings import Settings
    from lm_workbench.clicker import Clicker


@dataclass(frozen=True)
class LectureServices:
    """For the ``LectureController``: stepping through a preset's views, texts, models and settings."""

    owner: QWidget  # parent of its actions and dialogs
    views: ViewDriver
    models: LoadedModels
    text: TextBox
    notifier: Notifier
    next_action: QAction  # the window's Next/Previous (PageDown/PageUp)
    previous_action: QAction
    clicker: Clicker
    settings: Settings
    about_expanded: Callable[[], bool]  # the About panel folds away while a lecture runs
    set_about_expanded: Callable[[bool], None]
    open_workspace: Callable[..., Any]  # (path=None): open a workspace file, asking for one when None
    course_moved_on: Any = None  # SignalInstance: the course-model build moved on (a model arrived, it ended)


@dataclass(frozen=True)
class RecorderServices:
    """For the ``LectureRecorder``: what a step keeps (the current view's state, the text box, the model)."""

    owner: QWidget  # parent of its actions, dialogs and panel
    views: ViewDriver
    models: LoadedModels
    text: TextBox
    notifier: Notifier


@dataclass(frozen=True)
class StartPageServices:
    """For the ``StartPage``: the presets with their status, the recent workspaces, and opening either."""

    presets: list[Preset]
    status: Callable[[Preset], Any]  # -> lm_workbench.lectures.availability.PresetStatus
    start: Callable[[Preset], bool]
    open_preset_file: Callable[[], bool]
    recent_workspaces: list[str]
    open_workspace: Callable[..., Any]  # (path=None): open a workspace file, asking for one when None

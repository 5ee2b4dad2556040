"""What the window's menus and shortcuts (``lm_workbench.ui.window.actions``) get: the shared interfaces of its parts
(``lm_workbench.ui.view_kit.window_parts``), the window's own commands as plain callables, and the few window objects the
menus toggle (the model dock's action, the About panel, presentation mode). The lecture and workspace parts
declare theirs beside them (``lm_workbench.ui.lectures.services``, ``lm_workbench.ui.workspace.services``); views get a ``ViewContext``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMenuBar, QWidget

    from lm_workbench.ui.view_kit.window_parts import LoadedModels, ViewDriver
    from lm_workbench.ui.window.about_panel import AboutPanel
    from lm_workbench.ui.window.presentation import PresentationMode
    from lm_workbench.clicker import Clicker


@dataclass(frozen=True)
class WindowCommands:
    """What the File, Job and Tools menus do."""

    open_folder: Callable[[], None]
    focus_model: Callable[[], None]
    open_text_file: Callable[[], Any]
    show_plugins: Callable[[], None]
    export_view: Callable[[], Any]
    copy_view_picture: Callable[[], Any]
    copy_tokens: Callable[[], None]
    quit: Callable[[], Any]
    cancel_job: Callable[[], None]


@dataclass(frozen=True)
class ActionServices:
    """For ``build_actions``: the menus, shortcuts and what each action does."""

    owner: QWidget  # the actions are added to it, so their shortcuts work with the menu bar hidden
    menu_bar: QMenuBar
    views: ViewDriver  # View > Go to
    models: LoadedModels  # File > Load the default model
    commands: WindowCommands
    clicker: Clicker  # Next/Previous
    dock_action: QAction  # shows or hides the model dock
    about: AboutPanel  # F1 folds or opens it
    presentation: PresentationMode  # F5

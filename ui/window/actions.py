"""The main window's menus and keyboard shortcuts, as ``QAction``s.

Ctrl+O open folder, Ctrl+L focus the model field, Esc cancel the running
job, Ctrl+Shift+C copy tokens as TSV, Ctrl+E export the view, Ctrl+Shift+E
copy a picture of the view, Ctrl+Q quit, F1 show or hide the About panel,
F5 presentation mode (F6 the model dock, F10 the menu bar: ``lm_workbench.ui.window.presentation_fit``), PageDown/PageUp (what presentation clickers send) Next
and Previous step; every registered view has a "Go to" action with its
entry's shortcut (see each view's ``entry.py``). They get an ``ActionServices``
(``lm_workbench.ui.window.part_services``), not the window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from lm_workbench.ui.view_kit.window_action import window_action

if TYPE_CHECKING:
    from lm_workbench.ui.window.view_registry import ViewEntry
    from lm_workbench.ui.window.part_services import ActionServices


@dataclass
class WindowActions:
    open_folder: QAction
    open_text: QAction
    plugins: QAction
    focus_model: QAction
    default_model: QAction
    export_view: QAction
    copy_picture: QAction
    copy_tokens: QAction
    quit: QAction
    cancel: QAction
    toggle_about: QAction
    presentation: QAction
    next_step: QAction
    previous_step: QAction
    go_to: dict[str, QAction] = field(default_factory=dict)  # view id -> its "Go to" action
    view_menu: QMenu | None = None  # the View menu (presentation mode adds its menu-bar toggle there)




def build_actions(services: ActionServices, entries: Sequence[ViewEntry]) -> WindowActions:
    s, owner, do = services, services.owner, services.commands
    actions = WindowActions(
        open_folder=window_action(owner, "&Open model folder…", "Ctrl+O", do.open_folder,
                                  "Open a local model folder"),
        open_text=window_action(owner, "Open &text file…", "Ctrl+Shift+O", lambda: do.open_text_file(),
                                "Put a UTF-8 text file in the text box"),
        plugins=window_action(owner, "&Plugins…", None, do.show_plugins,
                              "Objective plugins: their status and errors; enable folder plugins"),
        focus_model=window_action(owner, "Type a &model id or path", "Ctrl+L", do.focus_model,
                                  "Focus the model field"),
        default_model=window_action(owner, "Load the &default model (MiniLM)", None,
                                    lambda: s.models.load("minilm")),
        export_view=window_action(owner, "&Export view as picture…", "Ctrl+E", do.export_view,
                                  "Save the current view as PNG or SVG"),
        copy_picture=window_action(owner, "Copy view &picture", "Ctrl+Shift+E", do.copy_view_picture,
                                   "Copy a picture of the current view to the clipboard"),
        copy_tokens=window_action(owner, "&Copy tokens as TSV", "Ctrl+Shift+C", do.copy_tokens,
                                  "Copy the tokens, ids and spans as tab-separated text"),
        quit=window_action(owner, "&Quit", "Ctrl+Q", do.quit),
        cancel=window_action(owner, "&Cancel running job", "Esc", do.cancel_job,
                             "Stop the running job"),
        toggle_about=window_action(owner, "&About this view", "F1", lambda: None,
                                   "Show or hide the explanation of the current view"),
        presentation=window_action(owner, "&Presentation mode", "F5", lambda: None,
                                   "Large fonts, high contrast, thick lines and colour-blind-safe colours for a "
                                   "projector"),
        next_step=window_action(owner, "&Next step", "PgDown", s.clicker.next,
                                "The next step of the lecture preset or step-by-step panel shown (PageDown)"),
        previous_step=window_action(owner, "P&revious step", "PgUp", s.clicker.previous,
                                    "The previous step (PageUp)"),
        go_to={e.id: window_action(owner, e.menu_title, e.shortcut, lambda view_id=e.id: s.views.show_view(view_id),
                                   f"Show the {e.title} view") for e in entries},
    )
    actions.cancel.setEnabled(False)
    actions.toggle_about.setCheckable(True)
    actions.toggle_about.setChecked(s.about.is_expanded())
    actions.toggle_about.toggled.connect(s.about.set_expanded)
    s.about.toggled.connect(actions.toggle_about.setChecked)
    actions.presentation.setCheckable(True)
    actions.presentation.setChecked(s.presentation.is_on())
    actions.presentation.toggled.connect(s.presentation.set_on)
    s.presentation.toggled.connect(actions.presentation.setChecked)

    def steppable() -> None:  # with nothing to step, PageDown/PageUp stay with the focused widget
        for a in (actions.next_step, actions.previous_step):
            a.setEnabled(s.clicker.active() is not None)

    steppable()
    s.clicker.events.changed.connect(steppable)

    bar = s.menu_bar
    file_menu = bar.addMenu("&File")
    for a in (actions.open_folder, actions.focus_model, actions.default_model, actions.open_text):
        file_menu.addAction(a)
    file_menu.addSeparator()
    file_menu.addAction(actions.export_view)
    file_menu.addAction(actions.copy_picture)
    file_menu.addAction(actions.copy_tokens)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    job_menu = bar.addMenu("&Job")
    job_menu.addAction(actions.cancel)
    tools_menu = bar.addMenu("&Tools")
    tools_menu.addAction(actions.plugins)
    view_menu = actions.view_menu = bar.addMenu("&View")
    for action in actions.go_to.values():
        view_menu.addAction(action)
    view_menu.addSeparator()
    view_menu.addAction(s.dock_action)
    view_menu.addAction(actions.toggle_about)
    view_menu.addSeparator()
    for a in (actions.presentation, actions.next_step, actions.previous_step):
        view_menu.addAction(a)
    return actions

"""The main window's menus and keyboard shortcuts, as ``QAction``s.

Ctrl+O open folder, Ctrl+L focus the model field, Esc cancel the running
job, Ctrl+Shift+C copy tokens as TSV, Ctrl+E export the view, Ctrl+Shift+E
copy a picture of the view, Ctrl+Q quit, F1 show or hide the About panel,
F5 presentation mode, PageDown/PageUp (what presentation clickers send) Next
and Previous step; every registered view has a "Go to" action with its
entry's shortcut (Ctrl+1 … Ctrl+7, Ctrl+Shift+P Pre-train, Ctrl+R Runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from ui.shell.main_window import MainWindow
    from ui.shell.view_registry import ViewEntry


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


def _action(window: MainWindow, text: str, shortcut: QKeySequence | str | None, slot: Callable, tip: str = "") -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda checked=False: slot())
    window.addAction(action)  # shortcuts work even with the menu bar hidden
    return action


def build_actions(window: MainWindow, entries: Sequence[ViewEntry]) -> WindowActions:
    panel = window.model_panel
    actions = WindowActions(
        open_folder=_action(window, "&Open model folder…", "Ctrl+O", panel.open_folder,
                            "Open a local model folder"),
        open_text=_action(window, "Open &text file…", "Ctrl+Shift+O", lambda: window.open_text_file(),
                          "Put a UTF-8 text file in the text box"),
        plugins=_action(window, "&Plugins…", None, window.show_plugins,
                        "Objective plugins: their status and errors; enable folder plugins"),
        focus_model=_action(window, "Type a &model id or path", "Ctrl+L", panel.focus_field,
                            "Focus the model field"),
        default_model=_action(window, "Load the &default model (MiniLM)", None,
                              lambda: window.load_model("minilm")),
        export_view=_action(window, "&Export view as picture…", "Ctrl+E", window.export_view,
                            "Save the current view as PNG or SVG"),
        copy_picture=_action(window, "Copy view &picture", "Ctrl+Shift+E", window.copy_view_picture,
                             "Copy a picture of the current view to the clipboard"),
        copy_tokens=_action(window, "&Copy tokens as TSV", "Ctrl+Shift+C", window.copy_tokens,
                            "Copy the tokens, ids and spans as tab-separated text"),
        quit=_action(window, "&Quit", "Ctrl+Q", window.close),
        cancel=_action(window, "&Cancel running job", "Esc", window.cancel_job,
                       "Stop the running job"),
        toggle_about=_action(window, "&About this view", "F1", lambda: None,
                             "Show or hide the explanation of the current view"),
        presentation=_action(window, "&Presentation mode", "F5", lambda: None,
                             "Large fonts, high contrast, thick lines and colour-blind-safe colours for a projector"),
        next_step=_action(window, "&Next step", "PgDown", window.steps.next,
                          "The next step of the lecture preset or step-by-step panel shown (PageDown)"),
        previous_step=_action(window, "P&revious step", "PgUp", window.steps.previous,
                              "The previous step (PageUp)"),
        go_to={e.id: _action(window, e.title, e.shortcut, lambda view_id=e.id: window.show_view(view_id),
                             f"Show the {e.title} view") for e in entries},
    )
    actions.cancel.setEnabled(False)
    actions.toggle_about.setCheckable(True)
    actions.toggle_about.setChecked(window.about_panel.is_expanded())
    actions.toggle_about.toggled.connect(window.about_panel.set_expanded)
    window.about_panel.toggled.connect(actions.toggle_about.setChecked)
    actions.presentation.setCheckable(True)
    actions.presentation.setChecked(window.presentation.is_on())
    actions.presentation.toggled.connect(window.presentation.set_on)
    window.presentation.toggled.connect(actions.presentation.setChecked)

    def steppable() -> None:  # with nothing to step, PageDown/PageUp stay with the focused widget
        for a in (actions.next_step, actions.previous_step):
            a.setEnabled(window.steps.active() is not None)

    steppable()
    window.steps.events.changed.connect(steppable)

    bar = window.menuBar()
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
    view_menu = bar.addMenu("&View")
    for action in actions.go_to.values():
        view_menu.addAction(action)
    view_menu.addSeparator()
    view_menu.addAction(window.model_dock.toggleViewAction())
    view_menu.addAction(actions.toggle_about)
    view_menu.addSeparator()
    for a in (actions.presentation, actions.next_step, actions.previous_step):
        view_menu.addAction(a)
    return actions

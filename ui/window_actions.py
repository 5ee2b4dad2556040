"""The main window's menus and keyboard shortcuts, as ``QAction``s.

Ctrl+O open folder, Ctrl+L focus the model field, Esc cancel the running
job, Ctrl+Shift+C copy tokens as TSV, Ctrl+E export the view, Ctrl+Q quit,
Ctrl+Shift+P the Pre-train tab, Ctrl+R the Runs tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from ui.main_window import MainWindow


@dataclass
class WindowActions:
    open_folder: QAction
    open_text: QAction
    plugins: QAction
    focus_model: QAction
    default_model: QAction
    export_view: QAction
    copy_tokens: QAction
    quit: QAction
    cancel: QAction
    toggle_about: QAction
    show_pretrain: QAction
    show_runs: QAction


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


def build_actions(window: MainWindow) -> WindowActions:
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
        copy_tokens=_action(window, "&Copy tokens as TSV", "Ctrl+Shift+C", window.copy_tokens,
                            "Copy the tokens, ids and spans as tab-separated text"),
        quit=_action(window, "&Quit", "Ctrl+Q", window.close),
        cancel=_action(window, "&Cancel running job", "Esc", window.cancel_job,
                       "Stop the running job"),
        toggle_about=QAction("&About this view", window),
        show_pretrain=_action(window, "&Pre-train a model…", "Ctrl+Shift+P",
                              lambda: window.views.setCurrentWidget(window.training_view),
                              "Pre-train BERT, GPT-2, BART or T5 from scratch"),
        show_runs=_action(window, "&Runs", "Ctrl+R", lambda: window.views.setCurrentWidget(window.runs_view),
                          "Every training run: curves, settings, run again"),
    )
    actions.cancel.setEnabled(False)
    actions.toggle_about.setCheckable(True)
    actions.toggle_about.setChecked(window.about_panel.is_expanded())
    actions.toggle_about.toggled.connect(window.about_panel.set_expanded)
    window.about_panel.toggled.connect(actions.toggle_about.setChecked)

    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    for a in (actions.open_folder, actions.focus_model, actions.default_model, actions.open_text):
        file_menu.addAction(a)
    file_menu.addSeparator()
    file_menu.addAction(actions.export_view)
    file_menu.addAction(actions.copy_tokens)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    job_menu = bar.addMenu("&Job")
    job_menu.addAction(actions.cancel)
    job_menu.addSeparator()
    job_menu.addAction(actions.show_pretrain)
    job_menu.addAction(actions.show_runs)
    tools_menu = bar.addMenu("&Tools")
    tools_menu.addAction(actions.plugins)
    view_menu = bar.addMenu("&View")
    view_menu.addAction(window.model_dock.toggleViewAction())
    view_menu.addAction(actions.toggle_about)
    return actions

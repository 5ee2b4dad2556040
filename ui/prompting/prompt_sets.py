"""Prompt sets in the Prompting tab: pick a built-in (or installed) set, open a teacher's file, save yours.

Built-in sets come through the ``lm_workbench.prompt_sets`` entry-point group like a third party's
(``lm_workbench.prompting.sets``); files use the documented JSON format (``lm_workbench.prompting.files``,
docs/prompt-sets.md). Taking a set puts its templates x verbalizers in the Evaluate page's comparison and its
example data in the data choice.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QComboBox, QFileDialog, QLabel, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.prompting.state import PromptingState
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button
from lm_workbench.ui.widgets.file_choice import file_or_ask

OPEN = "Open a prompt-set file…"
FILE_FILTER = "Prompt sets (*.json);;All files (*)"


def examples_file(prompt_set: Any) -> Path | None:
    """A file's examples written as a TSV under the data folder (None when it has none)."""
    from lm_workbench.paths import data_dir
    from lm_workbench.prompting.files import write_examples_tsv

    if not prompt_set.examples:
        return None
    folder = data_dir() / "prompt-sets"
    folder.mkdir(parents=True, exist_ok=True)
    return write_examples_tsv(prompt_set, folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', prompt_set.name)}.tsv")


class SetCombo(QComboBox):
    """A combo box that lists the installed sets when first opened (discovery imports the plugin API, and the
    window must open before torch is imported)."""

    def __init__(self, bar: "PromptSetBar"):
        super().__init__()
        self._bar = bar

    def showPopup(self) -> None:  # noqa: N802 (Qt API)
        self._bar.plugins()
        super().showPopup()


class PromptSetBar(QWidget):
    def __init__(self, state: PromptingState, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.ctx = state, ctx
        self._plugins: dict[str, Any] | None = None
        self.combo = SetCombo(self)
        self.combo.setToolTip("Built-in and installed prompt sets, or a prompt-set file")
        self.combo.addItem("Prompt set…")
        self.combo.addItem(OPEN)
        self.save_button = button("Save set…", tip="Save the compared prompts (and the data's examples) as a "
                                  "prompt-set file", clicked=lambda: self.save())
        row(QLabel("Prompts"), self.combo, self.save_button, owner=self)
        self.combo.activated.connect(self._activated)

    def plugins(self) -> dict[str, Any]:
        """The installed prompt sets by name (discovered once, then listed in the combo before "Open")."""
        if self._plugins is None:
            from lm_workbench.prompting.sets import prompt_set_registry

            registry = prompt_set_registry(self.ctx.settings)
            self._plugins = {name: registry.contribution(name) for name in registry.names()}
            for name, prompt_set in self._plugins.items():
                self.combo.insertItem(self.combo.count() - 1, prompt_set.title or name, name)
        return self._plugins

    def _activated(self, index: int) -> None:
        text, name = self.combo.itemText(index), self.combo.itemData(index)
        self.combo.setCurrentIndex(0)
        if text == OPEN:
            self.load()
        elif name in self.plugins():
            self.use_plugin(name)

    def use_plugin(self, name: str) -> None:
        from lm_workbench.prompting.files import from_plugin

        prompt_set = self.plugins()[name]
        try:
            self.state.apply_prompt_set(from_plugin(prompt_set), prompt_set.example_data())
        except WorkbenchError as exc:
            self.ctx.show_message(str(exc), "warning")

    def load(self, path: str | Path | None = None) -> bool:
        """Take the prompt set of ``path`` (asks when None); a bad file is a one-line message."""
        from lm_workbench.prompting.files import load_prompt_set

        path = file_or_ask(self, path, "Open a prompt set", FILE_FILTER)
        if path is None:
            return False
        try:
            prompt_set = load_prompt_set(path)
            self.state.apply_prompt_set(prompt_set, examples_file(prompt_set))
        except (WorkbenchError, OSError) as exc:
            self.ctx.show_message(str(exc), "warning")
            return False
        return True

    def save(self, path: str | Path | None = None) -> Path | None:
        from lm_workbench.prompting.files import SUFFIX, save_prompt_set

        if path is None:
            start = str(Path.home() / f"{self.state.set_name or 'my-prompts'}{SUFFIX}")
            path, _ = QFileDialog.getSaveFileName(self, "Save the prompt set", start, FILE_FILTER)
            if not path:
                return None
        path = Path(path)
        try:
            return save_prompt_set(self.state.to_prompt_set(path.stem), path)
        except (WorkbenchError, OSError) as exc:
            self.ctx.show_message(str(exc), "warning")
            return None

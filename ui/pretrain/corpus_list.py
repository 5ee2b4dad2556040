"""The corpus files of a pre-training run: add, remove, or the built-in Python documentation.

The list holds paths only; the files are read (streamed) by the run in its
own process. "Python docs (built in)" stands for the English prose of the
documentation the standard library ships (``pydoc_data.topics``); its file
is written on demand by ``lm_workbench.engine.pretrain.python_docs`` into the cache folder
when a run starts, so the form itself never touches the disk.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QListWidget, QListWidgetItem, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import flush_column, row
from lm_workbench.ui.widgets.controls import button

PYTHON_DOCS = "python-docs"  # the list's marker for the built-in corpus
PYTHON_DOCS_LABEL = "Python docs (built in)"
FILE_FILTER = "Text corpora (*.txt *.jsonl);;All files (*)"


def python_docs_path() -> Path:
    """The built-in corpus as a file in the cache folder (written the first time)."""
    from lm_workbench.pretrain.for_views import python_docs_corpus
    from lm_workbench.paths import cache_dir

    return Path(python_docs_corpus(cache_dir() / "corpora"))


class CorpusList(QWidget):
    """A list of corpus entries (file paths, or the built-in marker) with Add / Python docs / Remove."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        theme.bind(self, lambda w, m: w.list.setMaximumHeight(m.corpus_list_max_h))
        self.list.setToolTip("Plain-text (.txt: blank lines separate documents) or JSON-lines (.jsonl with a "
                             "\"text\" field) files, streamed during training.")
        self.add_button = button("Add files…", clicked=lambda: self.browse())
        self.docs_button = button(PYTHON_DOCS_LABEL, tip="The English prose of Python's own documentation (~0.4 MB), "
                                                         "present on every machine: enough for tiny demonstration "
                                                         "models.", clicked=self.add_python_docs)
        self.remove_button = button("Remove", clicked=self.remove_selected)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        buttons = row(self.add_button, self.docs_button, self.remove_button, 1)
        flush_column(self, self.list, buttons, spacing="row_spacing")
        self._update_buttons()

    # ----------------------------------------------------------------- API
    def entries(self) -> list[str]:
        """The entries in order: paths, and ``PYTHON_DOCS`` for the built-in corpus."""
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def add_path(self, path: str | Path) -> None:
        path = str(Path(path).expanduser())
        if path not in self.entries():
            item = QListWidgetItem(Path(path).name)
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.list.addItem(item)
            self._changed()

    def add_python_docs(self) -> None:
        if PYTHON_DOCS not in self.entries():
            item = QListWidgetItem(PYTHON_DOCS_LABEL)
            item.setData(Qt.ItemDataRole.UserRole, PYTHON_DOCS)
            item.setToolTip("Written to the cache folder when the run starts.")
            self.list.addItem(item)
            self._changed()

    def set_entries(self, entries: list[str]) -> None:
        self.list.clear()
        for entry in entries:
            if entry == PYTHON_DOCS:
                self.add_python_docs()
            else:
                self.add_path(entry)
        self._changed()

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self._changed()

    def browse(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Add corpus files", str(Path.home()), FILE_FILTER)
        for path in paths:
            self.add_path(path)

    def resolved_paths(self) -> list[str]:
        """The entries as file paths (writing the built-in corpus's file when it is listed)."""
        return [str(python_docs_path()) if e == PYTHON_DOCS else e for e in self.entries()]

    # -------------------------------------------------------------- helpers
    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.list.selectedItems()))
        self.docs_button.setEnabled(PYTHON_DOCS not in self.entries())

    def _changed(self) -> None:
        self._update_buttons()
        self.changed.emit()

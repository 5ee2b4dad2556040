"""Where the corpus comes from: pasted text, a file (opened or dropped), or the demo set.

The panel only gathers the user's choice; the explorer reads files in a job
(``lm_workbench.engine.embeddings.corpus.read_corpus`` streams them with byte progress,
so a 50 MB file never freezes the window). For ``.csv``/``.tsv``/``.jsonl``
the panel reads just the header line (or the first object's keys) to fill
the text- and label-column pickers; changing a column reads the file again.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget,
)

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.dataset_picker import choose_cached_dataset

CORPUS_SUFFIXES = (".txt", ".csv", ".tsv", ".jsonl", ".ndjson")
FILE_FILTER = "Corpora (*.txt *.csv *.tsv *.jsonl *.ndjson);;All files (*)"
AUTO = "(auto)"
NO_LABEL = "(auto: label or sense)"


def header_columns(path: str | Path) -> list[str]:
    """Column names of a .tsv/.csv header or the keys of a .jsonl file's first object ([] otherwise), as the
    table reader will see them."""
    from lm_workbench.embeddings.for_views import peek_header

    return peek_header(path)


def dropped_file(event) -> str | None:
    """The first dropped local file with a corpus suffix, if any."""
    mime = event.mimeData()
    for url in mime.urls() if mime.hasUrls() else ():
        if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in CORPUS_SUFFIXES:
            if Path(url.toLocalFile()).is_file():
                return url.toLocalFile()
    return None


class CorpusPanel(QWidget):
    file_requested = Signal(str, object, object)  # path, text column (None: auto), label column (None: none/auto)
    text_requested = Signal(str)  # pasted text
    demo_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAcceptDrops(True)
        self._path: str | None = None
        self.paste_edit = QPlainTextEdit()
        self.paste_edit.setPlaceholderText("Paste sentences here, one per line, or drop a .txt/.csv/.tsv/.jsonl file")
        theme.bind(self, lambda w, m: w.paste_edit.setMaximumHeight(m.paste_box_max_h))
        self.paste_edit.setAcceptDrops(False)  # drops go to the panel: a file becomes a corpus, not a path
        self.use_text_button = QPushButton("Use text")
        self.use_text_button.setToolTip("Embed the pasted lines (one text per line)")
        self.open_button = QPushButton("Open file…")
        self.open_button.setToolTip(".txt: one text per line; .csv/.tsv: a header row; .jsonl: {\"text\": …}")
        self.dataset_button = QPushButton("From the datasets cache…")
        self.dataset_button.setToolTip("A split of a dataset already in the local Hugging Face datasets cache, "
                                       "e.g. glue/sst2:validation (read offline)")
        self.demo_button = QPushButton("Demo set (polysemy)")
        self.demo_button.setToolTip("Sentences for polysemous words (bank, play, bass, …), labelled with their senses")
        self.text_column = QComboBox()
        self.label_column = QComboBox()
        self.text_column.setToolTip("The column holding the text")
        self.label_column.setToolTip("An optional column of labels (e.g. senses) to colour the map by")
        self.columns_row = QWidget()
        columns = QFormLayout(self.columns_row)
        columns.setContentsMargins(0, 0, 0, 0)
        columns.addRow("Text column", self.text_column)
        columns.addRow("Label column", self.label_column)
        self.columns_row.hide()
        self.summary = QLabel("No corpus yet: paste text, open or drop a file, or try the demo set.")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.use_text_button)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        theme.bind(layout, lambda w, m: w.setSpacing(m.row_spacing))
        layout.addWidget(self.demo_button)
        layout.addWidget(self.paste_edit)
        layout.addLayout(buttons)
        layout.addWidget(self.dataset_button)
        layout.addWidget(self.columns_row)
        layout.addWidget(self.summary)
        self.use_text_button.clicked.connect(lambda: self.text_requested.emit(self.paste_edit.toPlainText()))
        self.open_button.clicked.connect(lambda: self.open_file())
        self.demo_button.clicked.connect(self.demo_requested)
        self.dataset_button.clicked.connect(self.open_cached_dataset)
        self.text_column.activated.connect(lambda _i: self._request_file())
        self.label_column.activated.connect(lambda _i: self._request_file())

    # ----------------------------------------------------------------- API
    def open_file(self, path: str | Path | None = None) -> None:
        """Choose (or take) a corpus file, fill the column pickers, and ask for it to be read."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open a corpus", "", FILE_FILTER)
            if not path:
                return
        self._path = str(path)
        names = header_columns(path)
        self.columns_row.setVisible(bool(names))
        for combo, first in ((self.text_column, AUTO), (self.label_column, NO_LABEL)):
            combo.clear()
            combo.addItem(first, None)
            for name in names:
                combo.addItem(name, name)
        for name in ("label", "sense"):  # what the reader would pick itself: show it
            index = self.label_column.findData(name)
            if index >= 0:
                self.label_column.setCurrentIndex(index)
                break
        self._request_file()

    def open_cached_dataset(self) -> None:
        """Choose a split in the datasets cache and read it like a table file."""
        reference = choose_cached_dataset(self)
        if reference:
            self.open_file(reference)

    def set_summary(self, text: str) -> None:
        self.summary.setText(text)

    def columns(self) -> tuple[str | None, str | None]:
        return self.text_column.currentData(), self.label_column.currentData()

    # ------------------------------------------------------------ internals
    def _request_file(self) -> None:
        if self._path is not None:
            text_col, label_col = self.columns()
            self.file_requested.emit(self._path, text_col, label_col)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if dropped_file(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if dropped_file(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        path = dropped_file(event)
        if path:
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.open_file(path)

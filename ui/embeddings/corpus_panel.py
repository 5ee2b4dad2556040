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
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import flush_column, form_rows, row
from lm_workbench.ui.widgets.controls import button, combo_box, label
from lm_workbench.ui.widgets.dataset_picker import choose_cached_dataset
from lm_workbench.ui.widgets.file_choice import file_or_ask

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
        self.use_text_button = button("Use text", tip="Embed the pasted lines (one text per line)",
                                      clicked=lambda: self.text_requested.emit(self.paste_edit.toPlainText()))
        self.open_button = button("Open file…", tip=".txt: one text per line; .csv/.tsv: a header row; .jsonl: "
                                  "{\"text\": …}", clicked=lambda: self.open_file())
        self.dataset_button = button("From the datasets cache…", tip="A split of a dataset already in the local "
                                     "Hugging Face datasets cache, e.g. glue/sst2:validation (read offline)",
                                     clicked=self.open_cached_dataset)
        self.demo_button = button("Demo set (polysemy)", tip="Sentences for polysemous words (bank, play, bass, …), "
                                  "labelled with their senses", clicked=self.demo_requested)
        self.text_column = combo_box(tip="The column holding the text")
        self.label_column = combo_box(tip="An optional column of labels (e.g. senses) to colour the map by")
        self.columns_row = QWidget()
        form_rows(("Text column", self.text_column), ("Label column", self.label_column), owner=self.columns_row)
        self.columns_row.hide()
        self.summary = label("No corpus yet: paste text, open or drop a file, or try the demo set.", name="summary",
                             wrap=True)
        flush_column(self, self.demo_button, self.paste_edit, row(self.use_text_button, self.open_button),
                     self.dataset_button, self.columns_row, self.summary, spacing="row_spacing")
        self.text_column.activated.connect(lambda _i: self._request_file())
        self.label_column.activated.connect(lambda _i: self._request_file())

    # ----------------------------------------------------------------- API
    def open_file(self, path: str | Path | None = None) -> None:
        """Choose (or take) a corpus file, fill the column pickers, and ask for it to be read."""
        path = file_or_ask(self, path, "Open a corpus", FILE_FILTER, start="")
        if path is None:
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

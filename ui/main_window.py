"""The main window: model panel, text input, views, About panel, status bar.

All model work goes through one ``JobBridge`` (the interactive lane): loading
a model and re-tokenizing after each pause in typing. A new request replaces
a stale one; typing while a model loads waits for the load instead of
cancelling it. Errors appear in the inline message bar, never in a dialog.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabWidget, QVBoxLayout, QWidget

from engine.errors import WorkbenchError
from engine.progress import CancelToken
from engine.tokens import TokenizedText
from ui import about_texts
from ui import theme
from ui.about_panel import AboutPanel
from ui.job_bridge import JobBridge
from ui.model_panel import ModelPanel, format_count, spec_label
from ui.run_tracking.run_services import RunServices
from ui.status_bar import JobStatusBar
from ui.text_input import TextInputPanel
from ui.token_panel import TokenPanel
from ui.view_host import ViewHost
from ui.widgets.export import copy_text_to_clipboard, export_dialog, save_widget
from ui.widgets.message_bar import MessageBar
from ui.window_actions import build_actions
from workbench.export import suggest_filename, table_to_tsv
from workbench.settings import Settings, load_settings, save_settings

if TYPE_CHECKING:
    from engine.loading import LoadedModel

log = logging.getLogger(__name__)

HINT_NO_MODEL = "Load a model (left) to see how it splits text into tokens."
HINT_EMPTY = "Type a sentence above to see how the model splits it into tokens."
HINT_LOADING = "Loading the model…"
MAX_TEXT_FILE_BYTES = 2_000_000
TSV_HEADER = ["index", "token", "id", "start", "end", "text", "word", "segment", "special"]


@dataclass
class View:
    widget: QWidget
    title: str
    about_html: str
    export_widget: QWidget


def _load(spec: str, settings: Settings, token: CancelToken) -> Any:
    from workbench.model_jobs import load_model_job  # imports torch: on the worker thread

    return load_model_job(spec, settings, token)


def _tokenize(loaded: LoadedModel, text: str, pair: str | None, token: CancelToken) -> TokenizedText:
    from workbench.model_jobs import tokenize_job

    return tokenize_job(loaded, text, pair, token)


def folder_from_mime(mime: QMimeData) -> str | None:
    """The first local folder among dropped URLs, if any."""
    for url in mime.urls() if mime.hasUrls() else ():
        if url.isLocalFile() and Path(url.toLocalFile()).is_dir():
            return url.toLocalFile()
    return None


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings | None = None, parent: QWidget | None = None, *, persist: bool = True):
        super().__init__(parent)
        self.settings = settings if settings is not None else load_settings()
        self.persist = persist  # save the settings (recent models) on close
        self.loaded: LoadedModel | None = None
        self._loading_spec: str | None = None
        self._load_gen = 0
        self._load_started = 0.0
        self._tok_gen = 0
        self._views: list[View] = []
        self.setWindowTitle("LM Workbench")
        self.setAcceptDrops(True)

        self.jobs = JobBridge(self)
        self.message_bar = MessageBar()
        self.text_input = TextInputPanel()
        self.token_panel = TokenPanel()
        self.token_view = self.token_panel.view
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.about_panel = AboutPanel()
        self.model_panel = ModelPanel()
        self.model_panel.set_recent(self.settings.recent_models)
        self.status = JobStatusBar()
        self.setStatusBar(self.status)

        central = QWidget()
        column = QVBoxLayout(central)
        theme.bind(column, lambda w, m: w.setContentsMargins(*m.window_margins))
        theme.bind(column, lambda w, m: w.setSpacing(m.group_spacing))
        column.addWidget(self.message_bar)
        column.addWidget(self.text_input)
        column.addWidget(self.views, 1)
        column.addWidget(self.about_panel)
        self.setCentralWidget(central)

        self.model_dock = QDockWidget("Model", self)
        self.model_dock.setObjectName("modelDock")
        self.model_dock.setWidget(self.model_panel)
        self.model_dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.model_dock)
        self.resizeDocks([self.model_dock], [280], Qt.Orientation.Horizontal)

        self.actions_ = build_actions(self)
        self._connect()
        self.add_view(self.token_panel, about_texts.TOKENS_TITLE, about_texts.TOKENS_HTML, self.token_view)
        self.view_host = ViewHost(self)  # runs what the visible analysis view needs
        (self.attention_view, self.predictions_view, self.lens_view,
         self.masking_lab_view) = self.view_host.add_builtin_views()
        self.embeddings_view = self.view_host.add_embedding_view()
        self.run_services = RunServices()  # ONE long-run lane, store and reader; made on first use
        self.training_view, self.runs_view = self.view_host.add_training_views()
        self.token_panel.show_hint(HINT_NO_MODEL)
        for target in (self.text_input.editor.viewport(), self.text_input.pair_edit, self.model_panel.model_edit):
            target.installEventFilter(self)

    def _connect(self) -> None:
        self.jobs.busy_changed.connect(self.status.set_busy)
        self.jobs.busy_changed.connect(self.actions_.cancel.setEnabled)
        self.jobs.job_started.connect(self.status.job_started)
        self.jobs.progress.connect(self.status.show_progress)
        self.jobs.error.connect(lambda exc, tb, name: self.show_error(exc, tb, source=name))
        self.status.cancel_requested.connect(self.cancel_job)
        self.model_panel.load_requested.connect(self.load_model)
        self.text_input.edited.connect(self.retokenize)
        self.views.currentChanged.connect(self._view_changed)

    # --------------------------------------------------------------- views
    def add_view(self, widget: QWidget, title: str, about_html: str, export_widget: QWidget | None = None) -> int:
        """Add a view as a tab; its About text shows while it is current."""
        self._views.append(View(widget, title, about_html, export_widget or widget))
        index = self.views.addTab(widget, title)
        self._view_changed(self.views.currentIndex())
        return index

    def current_view(self) -> View | None:
        index = self.views.currentIndex()
        return self._views[index] if 0 <= index < len(self._views) else None

    def _view_changed(self, index: int) -> None:
        view = self.current_view()
        if view is not None:
            self.about_panel.set_view(view.title, view.about_html)

    # -------------------------------------------------------------- models
    def load_model(self, spec: str) -> None:
        """Load ``spec`` (a folder, hub id or 'minilm') in the background."""
        spec = spec.strip()
        if not spec or spec == self._loading_spec or self.jobs.closed:
            return
        self._load_gen += 1
        gen = self._load_gen
        self._loading_spec = spec
        self._load_started = time.monotonic()
        self.model_panel.set_loading(spec)
        if self.loaded is None:
            self.token_panel.show_hint(HINT_LOADING)
        settings = self.settings
        self.jobs.run(
            lambda token: _load(spec, settings, token),
            name="load",
            on_done=lambda loaded: self._model_loaded(gen, loaded),
            on_error=lambda exc, tb: self._load_ended(gen, f"could not load {spec}", exc, tb),
            on_cancelled=lambda: self._load_ended(gen, f"loading {spec} cancelled"),
            label=f"Loading {spec_label(spec)}…",
        )

    @property
    def loading(self) -> bool:
        return self._loading_spec is not None

    def _model_loaded(self, gen: int, loaded: LoadedModel) -> None:
        if gen != self._load_gen:
            return
        self._loading_spec = None
        self.loaded = loaded
        from workbench.model_jobs import settle_heap  # torch is imported by now

        settle_heap()  # on this (the GUI) thread: see its docstring
        info = loaded.info
        self.model_panel.set_info(info)
        self.settings.add_recent(info.folder if info.source == "folder" else info.spec)
        self.model_panel.set_recent(self.settings.recent_models)
        self.message_bar.clear("load")
        seconds = time.monotonic() - self._load_started
        self.status.set_message(
            f"Loaded {spec_label(info.spec)} · {format_count(info.parameters)} parameters · {seconds:.1f} s"
        )
        # Qt appends the application's display name (" — LM Workbench") itself where the platform shows titles.
        self.setWindowTitle(spec_label(info.spec))
        self.retokenize()

    def _load_ended(self, gen: int, what: str, exc: BaseException | None = None, tb: str = "") -> None:
        if gen != self._load_gen:
            return
        self._loading_spec = None
        self.model_panel.set_info(self.loaded.info if self.loaded is not None else None)
        if exc is not None:
            self.show_error(exc, tb, source="load", prefix=what[:1].upper() + what[1:])
        self.status.set_message(what[:1].upper() + what[1:] if exc is None else "Loading failed")
        self.retokenize()

    # ------------------------------------------------------------ tokenize
    def retokenize(self) -> None:
        """Tokenize the current text with the current model (in the background)."""
        if self.jobs.closed:
            return
        if self.loading:
            return  # the load's end calls back here; a new job now would cancel the load
        self._tok_gen += 1
        gen = self._tok_gen
        text, pair = self.text_input.text(), self.text_input.pair()
        if self.loaded is None:
            self.token_panel.show_hint(HINT_NO_MODEL)
            self.view_host.text_ready()
            return
        if not text.strip():
            self.token_panel.show_hint(HINT_EMPTY)
            self.message_bar.clear("tokenize")
            self.view_host.text_ready()
            return
        loaded = self.loaded
        self.jobs.run(
            lambda token: _tokenize(loaded, text, pair, token),
            name="tokenize",
            on_done=lambda tt: self._tokenized(gen, tt),
            on_error=lambda exc, tb: self._tokenize_failed(gen, exc, tb),
        )

    def _tokenized(self, gen: int, tt: TokenizedText) -> None:
        if gen == self._tok_gen:
            self.token_panel.set_tokenized(tt)
            self.message_bar.clear("tokenize")
            self.view_host.text_ready()

    def _tokenize_failed(self, gen: int, exc: BaseException, tb: str) -> None:
        if gen == self._tok_gen:
            self.token_panel.show_hint("The text could not be tokenized (see the message above).")
            self.show_error(exc, tb, source="tokenize")
            self.view_host.text_ready()

    # -------------------------------------------------------------- errors
    def show_error(self, exc: BaseException, tb: str = "", *, source: str | None = None, prefix: str = "") -> None:
        """A user error as its one-line message; a bug as "Unexpected error" (traceback in the log)."""
        if isinstance(exc, WorkbenchError) and not tb:
            text = str(exc)
        else:
            if not tb:  # raised on the GUI thread: the lane did not log it
                log.error("unexpected error", exc_info=exc)
            text = f"Unexpected error: {type(exc).__name__}: {exc}".splitlines()[0]
        self.message_bar.show_error(f"{prefix}: {text}" if prefix else text, source=source)

    def open_text_file(self, path: str | Path | None = None) -> bool:
        """Put a UTF-8 text file's contents in the text box (a bad file shows an error)."""
        from PySide6.QtWidgets import QFileDialog

        from engine.text_input import read_text_file

        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open text file", "", "Text (*.txt *.md);;All files (*)")
            if not path:
                return False
        path = Path(path)
        try:
            if path.is_file() and path.stat().st_size > MAX_TEXT_FILE_BYTES:
                raise WorkbenchError(
                    f"{path.name} is {path.stat().st_size / 1e6:.1f} MB; the text box takes up to "
                    f"{MAX_TEXT_FILE_BYTES // 1_000_000} MB (corpora go to the corpus views)"
                )
            text = read_text_file(path)
        except WorkbenchError as exc:
            self.show_error(exc, source="open-text")
            return False
        self.message_bar.clear("open-text")
        self.text_input.set_text(text)
        self.status.set_message(f"Opened {path.name}")
        return True

    def show_plugins(self) -> None:
        """The Plugins dialog (objective plugins, their errors, enabling folder plugins)."""
        from ui.plugins_dialog import PluginsDialog

        self.plugins_dialog = PluginsDialog(self)
        self.plugins_dialog.show()

    def cancel_job(self) -> None:
        if self.jobs.busy:
            self.jobs.cancel()
            self.status.set_message("Cancelling…")

    # ------------------------------------------------------------- exports
    def tokens_tsv(self) -> str | None:
        tt = self.token_view.tokenized()
        if tt is None:
            return None
        rows = []
        for i in range(len(tt)):
            start, end = tt.offsets[i]
            source = (tt.pair or "") if tt.segments[i] == 1 else tt.text
            covered = "" if tt.special[i] else source[start:end]
            word = "" if tt.word_ids[i] is None else tt.word_ids[i]
            segment = "" if tt.segments[i] is None else tt.segments[i]
            rows.append([i, tt.tokens[i], tt.ids[i], start, end, covered, word, segment, int(tt.special[i])])
        return table_to_tsv(TSV_HEADER, rows)

    def copy_tokens(self) -> None:
        text = self.tokens_tsv()
        if text is None:
            self.message_bar.show_info("There are no tokens to copy yet: type a sentence first.", source="copy")
            return
        copy_text_to_clipboard(text)
        self.status.set_message(f"Copied {text.count(chr(10)) - 1} tokens as TSV")

    def export_view(self, path: str | Path | None = None) -> Path | None:
        """Save the current view as PNG or SVG (asks where when ``path`` is None)."""
        view = self.current_view()
        if view is None:
            return None
        model = self.loaded.info.spec if self.loaded is not None else "no-model"
        try:
            if path is None:
                name = suggest_filename(view.title.lower(), model, "png")
                saved = export_dialog(self, view.export_widget, str(Path.home() / name))
            else:
                saved = save_widget(view.export_widget, path)
        except WorkbenchError as exc:
            self.show_error(exc, source="export")
            return None
        if saved is not None:
            self.status.set_message(f"Saved {saved}")
        return saved

    # -------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if folder_from_mime(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if folder_from_mime(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        folder = folder_from_mime(event.mimeData())
        if folder is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        self.model_panel.model_edit.setText(folder)
        self.load_model(folder)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Folders dropped on the text boxes load a model instead of pasting a path."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            if folder_from_mime(event.mimeData()):
                if kind == QEvent.Type.Drop:
                    self.dropEvent(event)
                else:
                    event.acceptProposedAction()
                return True
        return super().eventFilter(watched, event)

    # ---------------------------------------------------------------- close
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self.persist:
            try:
                save_settings(self.settings)
            except OSError as exc:
                log.warning("could not save settings: %s", exc)
        self.training_view.shutdown()
        self.runs_view.shutdown()
        self.run_services.shutdown()  # cancels a running job, ends the lane's thread
        self.jobs.shutdown()
        super().closeEvent(event)

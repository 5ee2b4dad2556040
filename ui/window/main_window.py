"""The main window: model panel, text input, the registry's views, About panel, status bar.

All model work goes through one ``JobBridge`` (the interactive lane): loading
a model, re-tokenizing after each pause in typing, and every view's jobs. A
new request replaces a stale one; typing while a model loads waits for the
load instead of cancelling it. Errors appear in the inline message bar, never
in a dialog. The tabs come from a ``lm_workbench.ui.window.view_registry.ViewRegistry``: the
window builds a ``Shell`` (its services as plain callables) and the
``ViewHost`` turns each entry into a tab with its own ``ViewContext``. The text
box and the pair line show only while the current view reads them. The window's own parts (lectures, the
recorder, the audience window, workspaces, the menus) get four small interfaces (``lm_workbench.ui.view_kit.window_parts``:
the views, the loaded models, the text box, a notifier) and what is theirs alone, never the window;
which load and which tokenization are current is a Qt-free ``lm_workbench.models.session.ModelSession``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter, QTabWidget, QVBoxLayout, QWidget

from lm_workbench.engine.errors import MachineFault, WorkbenchError
from lm_workbench.engine.progress import CancelToken
from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.ui import theme
from lm_workbench.ui.window.about_panel import AboutPanel
from lm_workbench.ui.window.compare_controller import CompareController
from lm_workbench.ui.window.course_part import CoursePart, CourseServices
from lm_workbench.ui.pretrain.course_builder import CourseBuilder
from lm_workbench.ui.lectures.clicker_keys import ClickerKeys
from lm_workbench.ui.view_kit.job_bridge import JobBridge
from lm_workbench.ui.lectures.audience_window import AudienceController
from lm_workbench.ui.lectures.controller import LectureController
from lm_workbench.ui.lectures.recorder import LectureRecorder
from lm_workbench.ui.window.model_panel import ModelPanel
from lm_workbench.ui.view_kit.model_label import format_count, spec_label
from lm_workbench.ui.window.presentation import PresentationMode
from lm_workbench.ui.window.dock_scroll import vertically_scrolling
from lm_workbench.ui.window.folder_drop import FolderDrop, folder_from_mime  # noqa: F401 (folder_from_mime: API)
from lm_workbench.ui.window.presentation_fit import PresentationFit, window_frame
from lm_workbench.ui.run_tracking.run_services import RunServices
from lm_workbench.ui.window.status_bar import JobStatusBar
from lm_workbench.ui.window.text_input import TextInputPanel
from lm_workbench.ui.window.tokens_tsv import tokens_tsv
from lm_workbench.ui.theme_tokens import DEFAULT
from lm_workbench.ui.lectures.services import LectureServices, RecorderServices
from lm_workbench.ui.view_kit.view_context import Shell
from lm_workbench.ui.view_kit.window_parts import LoadedModels, Notifier, TextBox, ViewDriver
from lm_workbench.ui.window.tab_names import TabNames
from lm_workbench.ui.window.view_host import ViewHost
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views
from lm_workbench.ui.window.part_services import ActionServices, WindowCommands
from lm_workbench.ui.widgets.export import copy_text_to_clipboard, copy_widget_picture, export_dialog, save_widget
from lm_workbench.ui.widgets.boxes import themed
from lm_workbench.ui.widgets.message_bar import MessageBar
from lm_workbench.ui.widgets.plot_style import restyle_axes
from lm_workbench.ui.widgets.wheel_guard import install_wheel_guard
from lm_workbench.ui.window.actions import build_actions
from lm_workbench.ui.window.geometry import place_on_screen, saved_geometry
from lm_workbench.ui.window.guide_part import install_guide
from lm_workbench.ui.workspace.controller import WorkspaceController
from lm_workbench.ui.workspace.services import WorkspaceServices
from lm_workbench.export import suggest_filename
from lm_workbench.faults import user_line
from lm_workbench.models.session import ModelSession
from lm_workbench.settings import Settings, load_settings, save_settings
from lm_workbench.clicker import Clicker

if TYPE_CHECKING:
    from lm_workbench.models.for_views import LoadedModel

log = logging.getLogger(__name__)

HINT_NO_MODEL = "Load a model (left) to see how it splits text into tokens."
HINT_EMPTY = "Type a sentence above to see how the model splits it into tokens."
HINT_LOADING = "Loading the model…"
MAX_TEXT_FILE_BYTES = 2_000_000


def _load(spec: str, settings: Settings, cancel: CancelToken) -> Any:
    from lm_workbench.models.loader import load_model_job  # imports torch: on the worker thread

    return load_model_job(spec, settings, cancel)


def _tokenize(loaded: LoadedModel, text: str, pair: str | None, cancel: CancelToken) -> TokenizedText:
    from lm_workbench.models.view_tasks import tokenize_job

    return tokenize_job(loaded, text, pair, cancel)


class MainWindow(FolderDrop, QMainWindow):
    model_ready = Signal(object)  # a model finished loading (the LoadedModel)

    def __init__(self, settings: Settings | None = None, parent: QWidget | None = None, *, persist: bool = True,
                 registry: ViewRegistry | None = None):
        super().__init__(parent)
        install_wheel_guard()  # once per application (create_application installs it too)
        self.settings = settings if settings is not None else load_settings()
        self.persist = persist  # save the settings (recent models, geometry) on close
        self.session = ModelSession()  # the loaded model and tokens, and which load / tokenization is current
        self.setWindowTitle("LM Workbench")
        self.setAcceptDrops(True)
        # Next/Previous (PageDown/PageUp, what presentation clickers send) go to whatever pushed itself here.
        self.clicker = Clicker()
        self.clicker_keys = ClickerKeys(self, self.clicker)
        self.presentation = PresentationMode(self.settings, save=self._save_settings if persist else None,
                                             parent=self)
        if self.settings.presentation_mode:
            self.presentation.set_on(True)  # before the widgets exist: they are built in its sizes

        self.jobs = JobBridge(self)
        self.message_bar = MessageBar()
        self.text_input = TextInputPanel()
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.about_panel = AboutPanel()
        self.about_panel.set_expanded(self.settings.about_expanded)
        self.model_panel = ModelPanel()
        self.model_panel.set_recent(self.settings.recent_models)
        self.status = JobStatusBar()
        self.setStatusBar(self.status)
        # the view's id (its tab's name) is whose status messages show; before the views' jobs start on a change
        self.views.currentChanged.connect(lambda i: self.status.set_context(self.views.widget(i).objectName()))

        central = QWidget()
        column = themed(QVBoxLayout(central), margins="window_margins", spacing="group_spacing")
        column.addWidget(self.message_bar)
        self.about_split = QSplitter(Qt.Orientation.Vertical)  # views above, their explanation below
        self.about_split.setChildrenCollapsible(False)
        self.about_split.addWidget(self.views)
        self.about_split.addWidget(self.about_panel)
        self.about_split.setStretchFactor(0, 1)
        self.about_split.setStretchFactor(1, 0)
        about_h = self.settings.about_height or theme.current().metrics.about_start_h
        self.about_split.setSizes([theme.current().metrics.window_size[1], about_h])  # the views take the rest
        column.addWidget(self.about_split, 1)
        self._about_open_h = about_h
        self.about_panel.toggled.connect(self._fit_about)
        self.about_split.splitterMoved.connect(self._about_dragged)
        if not self.about_panel.is_expanded():
            self._fit_about(False)
        self.setCentralWidget(central)

        self.model_dock = QDockWidget("Model", self)
        self.model_dock.setObjectName("modelDock")
        self.model_dock.setWidget(vertically_scrolling(self.model_panel))  # never taller than the screen (F6, F5)
        self.model_dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.model_dock)
        self.resizeDocks([self.model_dock], [DEFAULT.metrics.dock_start_w], Qt.Orientation.Horizontal)

        self.run_services = RunServices()  # ONE long-run lane, store and reader; made on first use
        self.status.follow_runs(self.run_services)  # the status bar names what the long-run lane runs
        self.course = CoursePart(CourseServices(  # the course models: their build, dialog, offer, status line
            owner=self, builder=CourseBuilder(self.run_services, self.register_model, self), settings=self.settings,
            save_settings=self._save_settings if persist else lambda: None, status_bar=self.status,
            place_banner=lambda banner: column.insertWidget(1, banner), load=self.load_model,
            load_generation=lambda: self.session.load_generation, notify=self.message_bar.show_message,
            clear=self.message_bar.clear, add_panel_note=self.model_panel.add_model_note))
        self.compare = CompareController(self.jobs, self.settings, a_loading=lambda: self.session.loading,
                                         status=self.status.say,
                                         show_error=lambda exc, tb: self.show_error(exc, tb, source="compare"))
        self.model_panel.add_section(self.compare.panel)  # "Compare with…": model B beside A (A | B views)
        self.view_host = ViewHost(self.views, self._shell(), registry or builtin_views(),
                                  settling=lambda: self.loading or self.text_input.pending(),
                                  pair=self.text_input.pair)
        self.tab_names = TabNames(self.views, self.view_host.entries, parent=self)
        self._part_interfaces()
        self.actions_ = build_actions(self._action_services(), self.view_host.entries())
        self.lectures = LectureController(self._lecture_services())  # the caption bar, Lectures menu, PageUp/Down
        column.insertWidget(1, self.lectures.bar)
        self.guide_dock = install_guide(self)  # the Guide's page panel beside the views; pages open as lecture steps
        self.lectures.install_menu(self.menuBar().addMenu("&Lectures"))
        self.workspaces = WorkspaceController(self._workspace_services())  # File > Save / Open workspace
        self.workspaces.install_menu(next(a.menu() for a in self.menuBar().actions() if a.text() == "&File"))
        self.recorder = LectureRecorder(RecorderServices(self, self.view_driver, self.loaded_models, self.text_box,
                                                         self.notifier), self.lectures)  # Lectures > Record lecture…
        self.audience = AudienceController(self, self.view_driver, self.lectures.runner,
                                           self.actions_.view_menu)  # View > Audience window
        self.presentation_fit = PresentationFit(window_frame(self, self.model_dock), self.about_panel,
                                                self.presentation, self.status.say, self.actions_.view_menu,
                                                parent=self)
        self.view_host.on_created = lambda view: restyle_axes(view) if self.presentation_fit.restyled else None
        self.compare.model_b_changed.connect(self.view_host.model_b_changed)
        self.course.builder.moved_on.connect(self.view_host.course_models_changed)  # views waiting for a model
        self.compare.state.events.loading_changed.connect(lambda spec: spec is None and self.retokenize())
        self._connect()
        self._view_changed(self.views.currentIndex())
        self.view_host.show_tokens(HINT_NO_MODEL)
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
        self.model_panel.set_precision(self.settings.precision)
        self.model_panel.precision_changed.connect(self.set_precision)
        self.model_panel.words_changed.connect(self.set_words)
        self.text_input.edited.connect(self.retokenize)
        self.views.currentChanged.connect(self._view_changed)

    def _shell(self) -> Shell:
        """The services views may use, as plain callables (see ``lm_workbench.ui.view_kit.view_context``)."""
        return Shell(
            bridge=self.jobs, settings=self.settings, loaded=lambda: self.loaded, run_services=self.run_services,
            show_error=lambda exc, tb, source: self.show_error(exc, tb, source=source),
            show_message=lambda text, level, source: self.message_bar.show_message(text, level, source=source),
            clear_message=self.message_bar.clear, status=self.status.set_message,  # keyed by the view
            open_model=self.open_model, register_model=self.register_model,
            text=self.text_input.text, set_text=lambda text: self.text_input.set_text(text, self.text_input.pair()),
            persist=self.persist, clicker=self.clicker, model_b=lambda: self.compare.loaded,
            compare_with=self.compare.load, tokenized=lambda: self.tokenized, course_models=self.course,
        )

    def _part_interfaces(self) -> None:
        """The four interfaces the window's parts share (``lm_workbench.ui.view_kit.window_parts``), never the window."""
        host, bar = self.view_host, self.message_bar
        self.view_driver = ViewDriver(
            entries=host.entries, current_entry=host.current_entry, show_view=self.show_view,
            preset_state=host.preset_state, apply_preset_step=host.apply_preset_step,
            export_widget=host.export_widget, current_changed=self.views.currentChanged,
        )
        self.loaded_models = LoadedModels(
            loaded=lambda: self.loaded, loading=lambda: self.loading, load=self.load_model, ready=self.model_ready,
            model_b=lambda: self.compare.loaded, compare_with=self.compare.load_after_a,
            stop_comparing=self.compare.stop,
        )
        self.text_box = TextBox(text=self.text_input.text, pair=self.text_input.pair, set_text=self.text_input.set_text)
        self.notifier = Notifier(
            show_message=lambda text, level, source: bar.show_message(text, level, source=source),
            clear=bar.clear, show_error=self.show_error, status=self.status.say,
        )

    def _action_services(self) -> ActionServices:
        commands = WindowCommands(
            open_folder=self.model_panel.open_folder, focus_model=self.model_panel.focus_field,
            open_text_file=self.open_text_file, show_plugins=self.show_plugins, export_view=self.export_view,
            copy_view_picture=self.copy_view_picture, copy_tokens=self.copy_tokens, quit=self.close,
            cancel_job=self.cancel_job,
        )
        return ActionServices(
            owner=self, menu_bar=self.menuBar(), views=self.view_driver, models=self.loaded_models, commands=commands,
            clicker=self.clicker, dock_action=self.model_dock.toggleViewAction(), about=self.about_panel,
            presentation=self.presentation,
        )

    def _lecture_services(self) -> LectureServices:
        return LectureServices(
            owner=self, views=self.view_driver, models=self.loaded_models, text=self.text_box, notifier=self.notifier,
            next_action=self.actions_.next_step, previous_action=self.actions_.previous_step, clicker=self.clicker,
            settings=self.settings, about_expanded=self.about_panel.is_expanded,
            set_about_expanded=self.about_panel.set_expanded,
            open_workspace=lambda path=None: self.workspaces.open(path),  # built after the lectures
            course_moved_on=self.course.builder.moved_on,
        )

    def _workspace_services(self) -> WorkspaceServices:
        return WorkspaceServices(
            owner=self, views=self.view_driver, models=self.loaded_models, text=self.text_box, notifier=self.notifier,
            settings=self.settings, runner=self.lectures.runner, resume_lecture=self.lectures.resume,
        )

    # --------------------------------------------------------------- views
    def view(self, view_id: str) -> QWidget:
        """The widget of the view registered as ``view_id`` (e.g. "attention")."""
        return self.view_host.widget(view_id)

    def show_view(self, view_id: str) -> None:
        self.view_host.show(view_id)

    def _about_dragged(self, _pos: int, _index: int) -> None:
        if self.about_panel.is_expanded():
            self._about_open_h = self.about_split.sizes()[1]

    def _fit_about(self, expanded: bool) -> None:
        """Collapsed, the About panel's room goes to the views (a splitter keeps a size past a new maximum);
        expanded again, it gets its last height back."""
        sizes = self.about_split.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        if expanded:
            about = self._about_open_h
        else:
            # the open height stays what it was (kept as the user drags the splitter): the panel has already
            # folded to its header by now, and F5's larger tokens must not become its height either
            about = self.about_panel.maximumHeight()
        self.about_split.setSizes([max(total - about, 0), about])

    def _view_changed(self, index: int) -> None:
        entry = self.view_host.current_entry()
        if entry is None:
            return
        self.about_panel.set_view(entry.title, entry.about_html)
        self.view_host.place_text_box(self.text_input)  # under the tab bar, for views that read it
        self.text_input.set_pair_visible("pair" in entry.inputs)

    def open_model(self, spec: str) -> None:
        """Load ``spec`` and show the Tokens tab (a trained model's "Open in views")."""
        self.model_panel.model_edit.setText(spec)
        self.load_model(spec)
        self.views.setCurrentIndex(0)

    def register_model(self, folder: str) -> None:
        """Add a model folder to the recent models (course models, when they finish)."""
        self.settings.add_recent(folder)
        self.model_panel.set_recent(self.settings.recent_models)
        self.compare.set_recent(self.settings.recent_models)

    # ------------------------------------------------------------ geometry
    def place_on_screen(self) -> None:
        place_on_screen(self, self.settings.window_geometry)

    def saved_geometry(self) -> str:
        return saved_geometry(self)

    # -------------------------------------------------------------- models
    def load_model(self, spec: str) -> None:
        """Load ``spec`` (a folder, hub id or 'minilm') in the background."""
        spec = spec.strip()
        if self.jobs.closed:
            return
        gen = self.session.begin_load(spec)
        if gen is None:
            return  # empty, or loading already
        self.model_panel.set_loading(spec)
        if self.loaded is None:
            self._show_tokens(None, HINT_LOADING)
        settings = self.settings
        self.jobs.run(
            lambda cancel: _load(spec, settings, cancel),
            name="load",
            on_done=lambda loaded: self._model_loaded(gen, loaded),
            on_error=lambda exc, tb: self._load_ended(gen, f"could not load {spec}", exc, tb, spec=spec),
            on_cancelled=lambda: self._load_ended(gen, f"loading {spec} cancelled"),
            label=f"Loading {spec_label(spec)}…",
        )

    def set_precision(self, precision: str) -> None:
        """Load models in ``precision`` from now on (saved in the settings); the loaded model is loaded again."""
        if precision == self.settings.precision:
            return
        self.settings.precision = precision
        if self.persist:
            self._save_settings()
        self.model_panel.set_precision(precision)
        if self.loaded is not None:
            self.load_model(self.loaded.info.spec)

    def set_words(self, mode: str) -> None:
        """The loaded ELMo reads words in ``mode`` ("as-given" or "split"), saved in its settings; it is loaded
        again with its new tokenizer."""
        loaded = self.loaded
        if loaded is None or mode == loaded.info.words:
            return
        self.settings.set_words(loaded.info.spec, mode)
        if self.persist:
            self._save_settings()
        self.load_model(loaded.info.spec)

    @property
    def loading(self) -> bool:
        return self.session.loading or self.compare.loading  # (B's load: tokenizing and views wait for it too)

    @property
    def loaded(self) -> LoadedModel | None:
        return self.session.loaded

    @property
    def tokenized(self) -> TokenizedText | None:
        """The text box's tokens with the loaded model."""
        return self.session.tokenized

    def _model_loaded(self, gen: int, loaded: LoadedModel) -> None:
        if not self.session.finish_load(gen, loaded):
            return
        self.compare.a_load_ended()
        from lm_workbench.models.view_tasks import settle_heap  # torch is imported by now

        settle_heap()  # on this (the GUI) thread: see its docstring
        info = loaded.info
        self.model_panel.set_info(info)
        self.course.model_loaded(info.folder)  # a course model built by an earlier version: Rebuild…
        self.settings.add_recent(info.folder if info.source == "folder" else info.spec)
        self.model_panel.set_recent(self.settings.recent_models)
        self.compare.set_recent(self.settings.recent_models)
        self.message_bar.clear("load")
        seconds = self.session.load_seconds()
        self.status.say(
            f"Loaded {spec_label(info.spec)} · {format_count(info.parameters)} parameters · {seconds:.1f} s"
        )
        # Qt appends the application's display name (" — LM Workbench") itself where the platform shows titles.
        self.setWindowTitle(spec_label(info.spec))
        self.view_host.model_loaded(loaded)
        self.retokenize()
        self.model_ready.emit(loaded)

    def _load_ended(self, gen: int, what: str, exc: BaseException | None = None, tb: str = "", spec: str = "") -> None:
        if not self.session.end_load(gen):
            return
        self.compare.a_load_ended()
        self.model_panel.set_info(self.loaded.info if self.loaded is not None else None)
        if self.course.load_failed(spec, exc):  # a course model the build is making: it loads when it arrives
            self.status.say(f"{spec} loads when the course-model build has made it")
            self.retokenize()
            return
        if exc is not None:
            self.show_error(exc, tb, source="load", prefix=what[:1].upper() + what[1:])
        self.status.say(what[:1].upper() + what[1:] if exc is None else "Loading failed")
        self.retokenize()

    # ------------------------------------------------------------ tokenize
    def retokenize(self) -> None:
        """Tokenize the current text with the current model (in the background)."""
        if self.jobs.closed:
            return
        if self.loading:
            return  # the load's end calls back here; a new job now would cancel the load
        gen = self.session.begin_tokenize()
        text, pair = self.text_input.text(), self.text_input.pair()
        if self.loaded is None:
            self._show_tokens(None, HINT_NO_MODEL)
            self.view_host.text_ready()
            return
        if not text.strip():
            self._show_tokens(None, HINT_EMPTY)
            self.message_bar.clear("tokenize")
            self.view_host.text_ready()
            return
        loaded = self.loaded
        self.jobs.run(
            lambda cancel: _tokenize(loaded, text, pair, cancel),
            name="tokenize",
            on_done=lambda tt: self._tokenized(gen, tt),
            on_error=lambda exc, tb: self._tokenize_failed(gen, exc, tb),
        )

    def _tokenized(self, gen: int, tt: TokenizedText) -> None:
        if self.session.is_current_tokenize(gen):
            self._show_tokens(tt)
            self.message_bar.clear("tokenize")
            self.view_host.text_ready()

    def _tokenize_failed(self, gen: int, exc: BaseException, tb: str) -> None:
        if self.session.is_current_tokenize(gen):
            self._show_tokens(None, "The text could not be tokenized (see the message above).")
            self.show_error(exc, tb, source="tokenize")
            self.view_host.text_ready()

    def _show_tokens(self, tt: TokenizedText | None, hint: str = "") -> None:
        self.session.tokenized = tt
        self.view_host.show_tokens(tt if tt is not None else hint)

    # -------------------------------------------------------------- errors
    def show_error(self, exc: BaseException, tb: str = "", *, source: str | None = None, prefix: str = "") -> None:
        """One line: a user error's message; a fault of the machine (a full disk, a vanished file, the run
        store) naming the file and what to do; a bug as "Unexpected error". Both with the log file that has
        the traceback (``lm_workbench.faults.user_line``)."""
        if not tb and not (isinstance(exc, WorkbenchError) and not isinstance(exc, MachineFault)):
            log.error("error in the window", exc_info=exc)  # raised on the GUI thread: the lane did not log it
        text = user_line(exc)
        self.message_bar.show_error(f"{prefix}: {text}" if prefix else text, source=source)

    def open_text_file(self, path: str | Path | None = None) -> bool:
        """Put a UTF-8 text file's contents in the text box (a bad file shows an error)."""
        from PySide6.QtWidgets import QFileDialog

        from lm_workbench.models.for_views import read_text_file

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
        self.status.say(f"Opened {path.name}")
        return True

    def show_plugins(self) -> None:
        """The Plugins dialog (objective plugins, their errors, enabling folder plugins)."""
        from lm_workbench.ui.window.plugins_dialog import PluginsDialog

        self.plugins_dialog = PluginsDialog(self.settings, self.jobs, persist=self.persist, parent=self)
        self.plugins_dialog.show()

    def cancel_job(self) -> None:
        if self.jobs.busy:
            self.jobs.cancel()
            self.status.job_says("Cancelling…")

    # ------------------------------------------------------------- exports
    def tokens_tsv(self) -> str | None:
        return tokens_tsv(self.tokenized) if self.tokenized is not None else None

    def copy_tokens(self) -> None:
        text = self.tokens_tsv()
        if text is None:
            self.message_bar.show_info("There are no tokens to copy yet: type a sentence first.", source="copy")
            return
        copy_text_to_clipboard(text)
        self.status.say(f"Copied {text.count(chr(10)) - 1} tokens as TSV")

    def export_view(self, path: str | Path | None = None) -> Path | None:
        """Save the current view as PNG or SVG (asks where when ``path`` is None)."""
        entry = self.view_host.current_entry()
        if entry is None:
            return None
        model = self.loaded.info.spec if self.loaded is not None else "no-model"
        widget = self.view_host.export_widget(entry.id)
        try:
            if path is None:
                name = suggest_filename(entry.title.lower(), model, "png")
                saved = export_dialog(self, widget, str(Path.home() / name))
            else:
                saved = save_widget(widget, path)
        except WorkbenchError as exc:
            self.show_error(exc, source="export")
            return None
        if saved is not None:
            self.status.say(f"Saved {saved}")
        return saved

    def copy_view_picture(self) -> bool:
        """Put a picture of the current view on the clipboard (in the presentation theme when it is on)."""
        entry = self.view_host.current_entry()
        if entry is None:
            return False
        copy_widget_picture(self.view_host.export_widget(entry.id))
        self.status.say(f"Copied a picture of {entry.title}")
        return True

    # ---------------------------------------------------------------- close
    def _save_settings(self) -> None:
        try:
            save_settings(self.settings)
        except OSError as exc:
            log.warning("could not save settings: %s", exc)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.settings.window_geometry = self.saved_geometry()
        self.settings.about_expanded = self.about_panel.is_expanded()
        if self.about_panel.is_expanded():
            self.settings.about_height = self.about_split.sizes()[1]
        if self.persist:
            self._save_settings()
        if self.presentation.is_on():  # the tokens are the application's: the next window starts from the default
            theme.set_tokens(DEFAULT)
        self.view_host.shutdown()
        self.course.builder.shutdown()
        self.run_services.shutdown()  # cancels a running job, ends the lane's thread
        self.jobs.shutdown()
        super().closeEvent(event)


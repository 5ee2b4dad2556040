"""The GUI entry point: ``run(argv)`` (entry point ``lm_workbench.frontends:gui``).

Settings are applied before anything imports ``transformers`` (the hub
client reads its offline switch once, at import), then the window opens and
starts loading the default model, or the model spec given as ``argv[0]``.
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

log = logging.getLogger(__name__)

APP_NAME = "LM Workbench"


def _model_arg(argv: list[str]) -> str | None:
    """The first argument that is not an option (Qt's own start with '-')."""
    for arg in argv:
        if arg and not arg.startswith("-"):
            return arg
    return None


def preset_views() -> dict[str, frozenset[str]]:
    """The window's views, id -> the setting keys a lecture preset may give each (for ``lm-workbench presets``;
    read from the view classes, which are imported but not built: no QApplication is needed)."""
    from lm_workbench.ui.window.view_registry import builtin_views

    return {entry.id: entry.preset_settings for entry in builtin_views()}


def create_application(argv: list[str] | None = None):
    """The ``QApplication`` (reused when one exists), named, themed and with the wheel guard
    (``ui/widgets/wheel_guard.py``)."""
    from PySide6.QtWidgets import QApplication

    from lm_workbench.ui.theme import apply_theme
    from lm_workbench.ui.widgets.wheel_guard import install_wheel_guard

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "lm-workbench", *(argv or [])])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName("LM Workbench")
    apply_theme(app)
    install_wheel_guard(app)  # the wheel scrolls forms instead of changing the setting under the pointer
    return app


def create_window(settings=None, *, persist: bool = True):
    """The main window (the one place outside the window's own module that names it)."""
    from lm_workbench.ui.window.main_window import MainWindow

    return MainWindow(settings, persist=persist)


def _install_excepthook(window):
    """Exceptions in Qt slots go to the log and the message bar; returns the previous hook."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, exc, tb)
            return
        text = "".join(traceback.format_exception(kind, exc, tb))
        log.error("unexpected error in the window:\n%s", text)
        try:
            window.show_error(exc, text)
        except Exception:  # the window may be gone
            pass

    sys.excepthook = hook
    return previous


def report_start(window) -> None:
    """What the window says at start, in its message bar: the run store's faults (a damaged store set aside
    and rebuilt, a newer one opened read-only, one that cannot be opened) and the runs that stopped without
    finishing last time."""
    from lm_workbench.notices import take_notices
    from lm_workbench.startup import check_run_store

    found = check_run_store()
    notices = take_notices()
    lines = notices + ([found.problem] if found.problem else [])
    ids = found.interrupted
    if ids:
        listed = ", ".join(f"#{i}" for i in ids[:5]) + ("…" if len(ids) > 5 else "")
        lines.append(f"{len(ids)} run(s) stopped without finishing last time ({listed}); they are marked "
                     "interrupted and keep what they saved.")
    if lines:
        level = "error" if found.problem else "warning" if notices else "info"
        window.message_bar.show_message(" ".join(lines), level, source="startup")


def _offer_course_models(settings) -> None:
    """Course models shipped in the bundle or trained here appear in the recent models (after the user's own)."""
    from lm_workbench.pretrain.course_models import installed_course_models

    for folder in installed_course_models():
        settings.offer_recent(str(folder))  # "<family>" and "<family>/model" are one entry


def run(argv: list[str] | None = None) -> int:
    """Open the window; returns the application's exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    from lm_workbench.models.network import apply_offline_mode
    from lm_workbench.settings import load_settings

    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.versions import refuse_known_breaks

    try:
        refuse_known_breaks("window")  # a Qt release known to crash the window: say so before it opens
    except WorkbenchError as error:
        print(f"lm-workbench: {error}", file=sys.stderr)
        return 2
    settings = load_settings()
    apply_offline_mode(settings.offline)  # before anything imports transformers
    _offer_course_models(settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from lm_workbench.logs import setup_logging
    from lm_workbench.notices import set_notice_handler

    setup_logging()  # tracebacks go to data_dir()/logs/lm-workbench.log; the window shows one line
    set_notice_handler(None)  # notices wait for report_start, which shows them in the message bar

    app = create_application([a for a in argv if a.startswith("-")])
    window = create_window(settings)
    window.place_on_screen()
    window.show()
    previous_hook = _install_excepthook(window)
    report_start(window)
    window.course.offer_first_launch()  # once ever: build the course models in the background?
    window.load_model(_model_arg(argv) or settings.default_model)
    from lm_workbench.ui.window.startup_probe import attach, launch_time

    if (launched := launch_time()) is not None:
        attach(window, app, launched)
    try:
        return app.exec()
    finally:
        sys.excepthook = previous_hook


if __name__ == "__main__":
    raise SystemExit(run())

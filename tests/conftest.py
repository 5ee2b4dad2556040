"""Suite-wide set-up: offline, headless, isolated, and strict about threads.

The environment is fixed here, before any test module imports the hub
client or Qt: ``HF_HUB_OFFLINE`` (the hub reads it once, at import),
``QT_QPA_PLATFORM=offscreen``, and ``LM_WORKBENCH_HOME`` pointing to a fresh
folder so no test touches the user's settings or run store. The suite runs on the CPU on every machine: a
GPU is hidden (``CUDA_VISIBLE_DEVICES=""``) unless ``LM_WORKBENCH_TEST_GPU=1`` asks for it, as
``scripts/gpu-checks.sh`` does for the ``gpu``-marked tests. On a GPU machine the CPU tests trained on CUDA
by the "auto" device (seen on an H200: three training-loop tests compared a CUDA run with their CPU reference).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["LM_WORKBENCH_HOME"] = tempfile.mkdtemp(prefix="lmwb-test-home-")
atexit.register(shutil.rmtree, os.environ["LM_WORKBENCH_HOME"], True)  # one per pytest process: 700 were left in /tmp
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("LM_WORKBENCH_TEST_GPU") != "1":  # before torch is imported: it reads this when CUDA starts
    os.environ["CUDA_VISIBLE_DEVICES"] = ""

import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci", deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, max_examples=25)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Threads that may outlive a test: ours only when a session-scoped fixture owns them.
_ALLOWED_THREAD_PREFIXES = ("session-", "pydevd", "QDBus", "Thread-Finalizer", "tqdm_monitor")


@pytest.fixture(autouse=True)
def collect_closed_windows(request):
    """After a GUI test, collect its closed window's reference cycles here, on the GUI thread.

    The application has one window for its whole life; a test session makes
    dozens. Their garbage holds Qt objects, and a collection that happens to
    run on a worker thread would destroy them there, which can deadlock
    against the event loop (see ``lm_workbench.models.view_tasks.settle_heap``).
    """
    yield
    if "qtbot" in request.fixturenames:
        import gc

        gc.collect()


@pytest.fixture(autouse=True)
def no_leaked_notices():
    """A notice a test announced with no one listening (``lm_workbench.notices``: a read-only run store, say) is
    dropped after it, not printed by the next test's in-process CLI as that command's own warning."""
    yield
    from lm_workbench.notices import take_notices

    take_notices()


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Fail a test that leaves a thread of its own running (as napari does for QThreads)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5.0
    while True:
        leaked = [
            t for t in threading.enumerate()
            if t not in before and t.is_alive() and not t.name.startswith(_ALLOWED_THREAD_PREFIXES)
        ]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not leaked, f"test left threads running: {[t.name for t in leaked]}"


class TinyModels:
    """Builds each tiny model the first time a test asks for it, once per session."""

    def __init__(self, root: Path):
        self.root = root
        self._lock = threading.Lock()

    def __getitem__(self, kind: str) -> Path:
        from tests.support.tiny_models import build_tiny_model

        folder = self.root / kind
        with self._lock:
            if not (folder / "config.json").is_file():
                build_tiny_model(kind, folder)
        return folder


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> TinyModels:
    """``tiny_models["bert"|"gpt2"|"llama"|"bart"|"t5"]`` -> a saved model folder."""
    return TinyModels(tmp_path_factory.mktemp("tiny-models"))


@pytest.fixture(scope="session")
def minilm():
    """The real default model (all-MiniLM-L6-v2), loaded once."""
    from lm_workbench.engine.models.loading import load_source as load_model

    return load_model("minilm")


@pytest.fixture
def fresh_home(tmp_path, monkeypatch) -> Path:
    """A private LM_WORKBENCH_HOME for tests that write settings or runs."""
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def delete_closed_widgets() -> None:
    """Delete now the widgets whose ``deleteLater`` is pending (pytest-qt's for the windows it closed).

    Without an event loop running between tests they lived on into the next tests, where every re-style
    (F5, a theme reset) polished their thousands of widgets again: teardowns of 10-20 s."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def restore_style(qapp):
    """The application's palette, font, style sheet and theme tokens as they were before the test (F5 tests)."""
    from lm_workbench.ui import theme
    from lm_workbench.ui.theme_tokens import DEFAULT

    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    yield
    # Re-styling polishes every live widget again (seconds for a main window's ~3,000 under load): let the
    # windows pytest-qt has closed go first, and re-style only when the test left another style behind.
    delete_closed_widgets()
    if theme.current() is not DEFAULT:
        theme.set_tokens(DEFAULT)
    qapp.setPalette(palette)
    qapp.setFont(font)
    if qapp.styleSheet() != sheet:
        qapp.setStyleSheet(sheet)
    qapp.setProperty("systemFontPt", None)


@pytest.fixture
def open_window(qtbot):
    """``open_window(spec=None, view=None, *, settings=None, persist=False, size=(1280, 800), about=True,
    registry=None)``: a shown main window; with ``spec``, that model loaded; with ``view``, the view
    registered under that id current; ``registry`` replaces the built-in views; ``about=False`` collapses
    the About panel. Closed at the end; its interactive lane and its long-run services must have stopped."""
    from lm_workbench.ui.window.main_window import MainWindow
    from lm_workbench.settings import Settings

    windows = []

    def open_(spec: str | None = None, view: str | None = None, *, settings: Settings | None = None,
              persist: bool = False, size: tuple[int, int] = (1280, 800), about: bool = True, registry=None):
        window = MainWindow(settings or Settings(), persist=persist, registry=registry)
        qtbot.addWidget(window)
        window.resize(*size)
        window.show()
        if not about:
            window.about_panel.set_expanded(False)
        windows.append(window)
        if spec is not None:
            window.load_model(spec)
            qtbot.waitUntil(lambda: window.loaded is not None, timeout=30000)
        if view is not None:
            window.show_view(view)
        return window

    yield open_
    from shiboken6 import isValid

    for window in windows:
        if isValid(window):  # (pytest-qt has closed it already, and restore_style may have deleted it)
            window.close()
        assert not window.jobs._lane.thread.is_alive()
        assert window.run_services.closed
    delete_closed_widgets()


# The newest lane (scripts/test-newest.sh, `-m newest`): besides tests/newest (every family x fine-tuning method),
# each view's and each long run's compute path, on the newest releases pyproject allows. About 2 minutes on 2 cores.
NEWEST_LANE = (
    "tests/newest/",
    "tests/tokens/test_tokens.py", "tests/tokens/test_gui_token_view.py",
    "tests/attention/test_attention.py", "tests/attention/test_attention_walkthrough.py",
    "tests/predictions/test_predictions.py", "tests/predictions/test_decoding.py", "tests/predictions/test_lens_memory.py",
    "tests/objectives/test_objectives_examples.py", "tests/objectives/test_objectives_losses.py",
    "tests/embeddings/test_embeddings_extract.py", "tests/embeddings/test_embeddings_sense.py",
    "tests/probing/test_probing_math.py", "tests/probing/test_scalar_mix.py",
    "tests/prompting/test_prompting_scoring.py", "tests/prompting/test_prompting_generation.py",
    "tests/attribution/test_attribution.py", "tests/attribution/test_attribution_families.py",
    "tests/patching/test_patching.py", "tests/patching/test_patching_noise.py",
    "tests/lens/test_tuned_lens.py", "tests/compare/test_layer_cka.py", "tests/compare/test_layer_cka_elmo.py",
    "tests/models/test_parity.py", "tests/models/test_bad_input.py", "tests/elmo/test_elmo_family.py",
    "tests/pretrain/test_pretrain_families.py", "tests/pretrain/test_training_loop.py",
    "tests/finetune/test_finetune_methods_reload.py", "tests/finetune/test_finetune_methods_counts.py",
    "tests/finetune/test_finetune_prefix_cache.py", "tests/finetune/test_finetune_prefix_supplied.py",
    "tests/cli/test_self_test.py",
)


def pytest_collection_modifyitems(config, items):
    root = Path(str(config.rootpath))
    for item in items:
        where = Path(str(item.path)).relative_to(root).as_posix()
        if where.startswith(NEWEST_LANE):
            item.add_marker(pytest.mark.newest)

"""Screenshots of every registered view at a given window size, for looking at layouts.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/tab_screenshots.py OUT_DIR [WIDTHxHEIGHT] [--present]

Opens the window on the default model (MiniLM, offline) with a sentence pair in the text box and the
polysemy demo set embedded, then saves ``OUT_DIR/<size>-<view id>.png`` for each tab of the registry.
The default size is the one the window used to open at, 1180 x 760. ``--present`` turns presentation mode
(F5) on first and names the files ``<size>-f5-<view id>.png``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(out: Path, size: str = "1180x760", present: bool = False) -> None:
    from PySide6.QtWidgets import QApplication

    from lm_workbench.ui.app import create_application
    from lm_workbench.ui.window.main_window import MainWindow
    from lm_workbench.settings import Settings

    app = create_application([])
    width, height = (int(v) for v in size.split("x"))

    def wait(condition, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > end:
                raise TimeoutError("the window did not get there in time")
            app.processEvents()
            time.sleep(0.02)

    def settle() -> None:
        end = time.monotonic() + 0.4
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    out.mkdir(parents=True, exist_ok=True)
    window = MainWindow(Settings(recent_models=["minilm"]), persist=False)
    window.resize(width, height)
    window.show()
    if present:
        window.presentation.set_on(True)
    try:
        window.load_model("minilm")
        wait(lambda: window.loaded is not None)
        window.text_input.set_text("The bank raised interest rates.", "We sat by the river bank.")
        wait(lambda: window.tokenized is not None and not window.jobs.busy)
        embeddings = window.view("embeddings")
        window.show_view("embeddings")
        embeddings.use_demo()
        wait(lambda: embeddings.state.coords is not None and not window.jobs.busy)
        for entry in window.view_host.entries():
            window.show_view(entry.id)
            wait(lambda: not window.jobs.busy)
            settle()
            path = out / f"{size}{'-f5' if present else ''}-{entry.id}.png"
            window.grab().save(str(path), "PNG")
            print(path)
        QApplication.processEvents()
    finally:
        window.close()


if __name__ == "__main__":
    flags = [a for a in sys.argv[2:] if a.startswith("--")]
    sizes = [a for a in sys.argv[2:] if not a.startswith("--")]
    main(Path(sys.argv[1]), *sizes[:1], present="--present" in flags)

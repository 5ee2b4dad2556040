"""Save a screenshot of the window with MiniLM and a sample sentence.

``python -m lm_workbench.ui.screenshot docs/screenshot.png`` opens the window off screen
(unless a display is set), loads the default model, types a sentence, waits
for its tokens and saves ``window.grab()``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from lm_workbench.ui import theme

SENTENCE = "The bank raised interest rates; unbelievably, we sat on the river bank."


def main(path: str | Path, timeout: float = 60.0) -> Path:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from lm_workbench.models.network import apply_offline_mode
    from lm_workbench.settings import Settings

    apply_offline_mode(True)
    from lm_workbench.ui.app import create_application, create_window

    app = create_application()
    window = create_window(Settings(recent_models=["minilm"]), persist=False)
    window.resize(*theme.current().metrics.screenshot_size)
    window.show()
    try:
        window.load_model("minilm")
        _wait(app, lambda: window.loaded is not None, timeout, "the model to load")
        window.text_input.set_text(SENTENCE, "")
        _wait(app, lambda: bool(window.view("tokens").view.tokens()) and not window.jobs.busy, timeout, "tokens")
        _wait(app, lambda: False, 0.4, "")  # let the status bar settle
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        return path
    finally:
        window.jobs.shutdown()
        window.close()


def _wait(app, done, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            if what:
                raise TimeoutError(f"timed out waiting for {what}")
            return
        app.processEvents()
        time.sleep(0.01)


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshot.png"))

"""Screenshots of the Attention, Predictions and Logit lens tabs for docs/.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/view_screenshots.py [docs]

Writes attention.png (MiniLM, layer 2, the token "bank" hovered),
predictions.png (a tiny random BERT: fill-mask tables), predictions-missing-head.png
(MiniLM: the missing-MLM-head message) and lens.png (a tiny random GPT-2), each
``window.grab()`` of a 1280x800 window. The tiny models are built from configs
into a temporary folder (tests/support/tiny_models.py), nothing is downloaded.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(out: Path) -> None:
    from lm_workbench.models.network import apply_offline_mode

    apply_offline_mode(True)
    from tests.support.tiny_models import build_tiny_model
    from lm_workbench.ui.app import create_application

    app = create_application()
    from lm_workbench.ui.window.main_window import MainWindow
    from lm_workbench.settings import Settings

    def wait(done, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not get there in time")
            app.processEvents()
            time.sleep(0.01)

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def load(window, spec: str) -> None:
        window.load_model(spec)
        wait(lambda: window.loaded is not None and window.loaded.info.spec.endswith(Path(spec).name)
             and not window.loading)

    def save(window, name: str) -> None:
        settle()
        path = out / name
        if not window.grab().save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        print(path)

    out.mkdir(parents=True, exist_ok=True)
    tiny = Path(tempfile.mkdtemp(prefix="lmwb-tiny-"))
    for kind in ("bert", "gpt2"):
        build_tiny_model(kind, tiny / kind)
    window = MainWindow(Settings(recent_models=["minilm"]), persist=False)
    window.resize(1280, 800)
    window.show()
    try:
        load(window, "minilm")
        view = window.view("attention")
        window.show_view("attention")
        window.text_input.set_text("The bank raised interest rates because inflation rose.")
        wait(lambda: view.side() is not None and not window.jobs.busy)
        view.controls.layer_spin.setValue(2)
        view.head_view.set_hover((0, view.side().query_tokens.index("bank")))
        save(window, "attention.png")

        load(window, str(tiny / "bert"))
        predictions = window.view("predictions")
        window.show_view("predictions")
        window.text_input.set_text("The [MASK] of the object is a [MASK] value.")
        wait(lambda: predictions.pages.currentWidget() is predictions.fill_page and not window.jobs.busy)
        save(window, "predictions.png")
        load(window, "minilm")
        wait(lambda: predictions.notice.level() == "warning" and not window.jobs.busy)
        save(window, "predictions-missing-head.png")

        load(window, str(tiny / "gpt2"))
        window.show_view("lens")
        window.text_input.set_text("The value of the object is returned by the function.")
        wait(lambda: window.view("lens").model.table() is not None and not window.jobs.busy)
        save(window, "lens.png")
    finally:
        window.jobs.shutdown()
        window.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs")

"""Time a cold start: with ``LM_WORKBENCH_STARTUP_PROBE=<launch time in epoch seconds>`` the
window prints, as one JSON line on stdout, the seconds from launch until it was shown, until
the default model was loaded and its tokens of a sentence were on screen, and until that
sentence was encoded (hidden states and attentions, as the views compute them), then quits.
Any other value (e.g. 1) counts from the moment the window was created. Used by
packaging/startup_timing.sh to compare the bundle with the virtual environment.
"""

from __future__ import annotations

import json
import os
import time

from PySide6.QtCore import QTimer

ENV = "LM_WORKBENCH_STARTUP_PROBE"
SENTENCE = "The bank raised interest rates again."
TIMEOUT_S = 300.0


def launch_time() -> float | None:
    """The launch time the probe counts from, or None when the probe is off."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        return time.time()
    return value if value > 1e9 else time.time()  # not an epoch time (e.g. 1): count from now


def attach(window, app, launched: float) -> None:
    """Give the window a sentence, record when things appear, print them and quit."""
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks[name] = round(time.time() - launched, 3)

    def finish(code: int) -> None:
        print(json.dumps(marks), flush=True)
        app.exit(code)

    def poll() -> None:
        if window.loaded is not None and window.tokenized is not None:
            timer.stop()
            mark("tokens_shown_s")
            from lm_workbench.models.for_views import encode

            encode(window.loaded, SENTENCE, attentions=True)
            mark("encoded_s")
            finish(0)
        elif time.time() - launched > TIMEOUT_S:
            timer.stop()
            marks["error"] = "timed out"
            finish(1)

    window.text_input.set_text(SENTENCE)
    QTimer.singleShot(0, lambda: mark("window_shown_s"))  # the event loop's first pass after show()
    timer = QTimer(window)
    timer.setInterval(10)
    timer.timeout.connect(poll)
    timer.start()

"""Jobs the interactive lane runs for the main window around a model: tokenize text, settle the heap after a
load. Loading itself is the one loader's (``lm_workbench.models.loader``: ``load_model``, ``load_model_job``).
"""

from __future__ import annotations

import gc

from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import CancelToken
from lm_workbench.engine.text_window import read_text
from lm_workbench.engine.tokens import TokenizedText


def settle_heap() -> None:
    """Collect garbage once, then freeze what survives: call it on the GUI thread after a load.

    A loaded model leaves ~400k objects that Python's cycle collector tracks; a
    full collection over them takes ~200 ms and, fired later by chance, blocks
    the window for as long (tests/bench/bench_event_loop.py --inject-full-gc).
    Freezing them once after the load keeps later collections at a few ms.
    The collection runs on the GUI thread on purpose: garbage may hold Qt
    objects (a closed view's widgets), and destroying those on a worker thread
    can deadlock against the GUI thread's event loop.
    """
    gc.collect()
    gc.freeze()


def tokenize_job(loaded: LoadedModel, text: str, pair: str | None, cancel: CancelToken) -> TokenizedText:
    cancel.check()
    return read_text(loaded, text, pair or None)  # the window every view of the text reads


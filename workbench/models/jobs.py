"""Jobs the interactive lane runs for the main window: load a model, tokenize text.

Each is a generator function of a cancel token (plus its inputs) that yields
progress and returns its result, so the window, the CLI and tests run the
same code. They read the user's settings for device, precision, threads,
safety switches and the model's own settings (an ELMo's words mode).
"""

from __future__ import annotations

import gc
from typing import Any, Generator

from lm_workbench.engine.models.device import set_cpu_threads
from lm_workbench.engine.models.loading import LoadedModel, load_model
from lm_workbench.engine.models.sources import resolve_job
from lm_workbench.engine.progress import CancelToken, Progress, relay
from lm_workbench.engine.text_window import read_text
from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.settings import Settings


def _download_progress(item: Any) -> Progress:
    """A download's plan as the progress line that names its size; its ``Progress`` as it is."""
    from lm_workbench.engine.models.download import DownloadPlan

    if isinstance(item, DownloadPlan):
        return Progress(0, max(item.total_bytes, 1), f"downloading {item.describe()}")
    return item


def load_model_job(spec: str, settings: Settings, cancel: CancelToken) -> Generator[Progress, None, LoadedModel]:
    """Load ``spec`` as the settings say; a hub id that is not cached is downloaded first, with its progress
    (``lm_workbench.engine.models.sources.resolve_job`` decides)."""
    from lm_workbench.models.spec_kinds import claiming_kind, rewrite_spec

    yield Progress(0, 2, f"loading {spec}")
    set_cpu_threads(settings.cpu_threads)
    cancel.check()
    spec = rewrite_spec(spec)  # course:<family>, as presets say it: in the model box, Compare and the CLI
    kind = claiming_kind(spec)  # e.g. a sentence encoder trained with adapters, prefix or prompt tuning
    if kind is not None:
        return (yield from kind.load(spec, settings, cancel))
    source = yield from relay(resolve_job(spec, allow_pickle=settings.allow_pickle_weights, cancel=cancel),
                              _download_progress)
    if source.kind == "hub":
        yield Progress(1, 2, f"loading {spec}")
    gc.unfreeze()  # let a replaced model's objects be collected again
    loaded = load_model(
        source,
        device=settings.device,
        precision=settings.precision,
        trust_remote_code=settings.trust_remote_code,
        allow_pickle=settings.allow_pickle_weights,
        memory_headroom=settings.memory_headroom,
        words=settings.words_for(spec),
    )
    cancel.check()
    yield Progress(2, 2, f"loaded {spec}")
    return loaded


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


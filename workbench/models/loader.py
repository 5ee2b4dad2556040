"""The one model loader: every kind of model spec resolves here, and every caller loads through ``load_model``.

A spec is what the model box, ``--model``, a preset or Compare's model B takes:

================  =====================================================================================
kind              spec
================  =====================================================================================
``default``       ``minilm`` (or ``default``): all-MiniLM-L6-v2 from its wheel (``engine.models.default``)
``folder``        a transformers model folder (``config.json``), an ELMo folder
``run``           a training run's folder: pre-training's ``DIR`` (its ``DIR/model``), a fine-tuning run
                  whose method trained every weight (``finetune.json`` + ``adapter/config.json``)
``cache``         a hub id found complete in the Hugging Face cache
``hub``           a hub id that is not cached: downloaded first (with its progress), unless offline
registered kinds  what areas add through the entry-point group ``lm_workbench.model_specs``
                  (``lm_workbench.models.spec_kinds``): ``course:<family>`` (pre-training's course models,
                  rewritten to their folder) and ``sentence-output`` (fine-tuning's sentence encoder trained
                  with adapters, prefix or prompt tuning, rebuilt on its base)
================  =====================================================================================

``load_model(spec, device=, precision=, offline=)`` returns a ``LoadedModel``
(``lm_workbench.engine.models.loading``); ``load_model_job`` is the same load as a job generator (its progress:
a download's bytes, then the load) for the window's lanes; ``spec_kind`` names the kind a spec is;
``resolve_folder`` gives the local folder of a spec for callers that need files, not a loaded model (the base of
a fine-tuning run). Only this module turns a user's spec into a model: the engine's ``load_source`` loads the
folder this module resolved (an architecture test keeps ``AutoModel*.from_pretrained`` there).
Errors: ``WorkbenchError`` subclasses with one line (``ModelNotFoundError``, ``ModelFormatError``,
``InsufficientMemoryError``, ``CourseModelComing``).
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay, run_to_completion

BUILT_IN_KINDS = ("default", "folder", "run", "cache", "hub")


def _download_progress(item: Any) -> Progress:
    """A download's plan as the progress line that names its size; its ``Progress`` as it is."""
    from lm_workbench.engine.models.download import DownloadPlan

    if isinstance(item, DownloadPlan):
        return Progress(0, max(item.total_bytes, 1), f"downloading {item.describe()}")
    return item


def spec_kind(spec: str) -> str:
    """The kind of ``spec`` (see the module docstring): a registered kind's name (``course``,
    ``sentence-output``) or one of ``BUILT_IN_KINDS``; "hub" for an id that is neither a folder nor cached
    (nothing is downloaded here). ``WorkbenchError`` for a spec no kind takes (an empty one, a missing folder)."""
    from lm_workbench.engine.models.default import DEFAULT_MODEL_NAMES
    from lm_workbench.engine.models.sources import cached_snapshot, looks_like_path, resolve_model
    from lm_workbench.models.spec_kinds import claiming_kind, spec_kinds

    spec = (spec or "").strip()
    for kind in spec_kinds():
        if kind.rewrite is not None and kind.rewrite(spec) != spec:
            return kind.name
    claimed = claiming_kind(spec)
    if claimed is not None:
        return claimed.name
    if spec.lower() in DEFAULT_MODEL_NAMES:
        return "default"
    path = Path(spec).expanduser()
    if path.exists() or looks_like_path(spec):
        folder = resolve_model(spec).folder  # fails in one line for a folder that is no model
        return "folder" if folder == path.resolve() else "run"
    return "cache" if cached_snapshot(spec) is not None else "hub"


def resolve_folder(spec: str, *, allow_pickle: bool = False) -> Path:
    """The local folder of ``spec`` after every registered rewrite (``course:bert`` -> its folder, a run folder
    -> its model): for callers that read a base model's files (fine-tuning's base). A hub id not cached is
    downloaded without reports. ``WorkbenchError`` with one line when it cannot be found."""
    from lm_workbench.engine.models.sources import resolve_model
    from lm_workbench.models.spec_kinds import rewrite_spec

    return Path(resolve_model(rewrite_spec(spec), allow_pickle=allow_pickle).folder)


def load_model_job(spec: str, settings: Any, cancel: CancelToken) -> Generator[Progress, None, Any]:
    """Load ``spec`` as ``settings`` (``lm_workbench.settings.Settings``) say: device, precision, CPU threads,
    safety switches, the model's own words mode (an ELMo). A job generator: yields ``Progress`` (a hub id that
    is not cached is downloaded first, its bytes reported; ``lm_workbench.engine.models.sources.resolve_job``
    decides) and returns the ``LoadedModel``; stops at ``cancel``."""
    from lm_workbench.engine.models.device import set_cpu_threads
    from lm_workbench.engine.models.loading import load_source
    from lm_workbench.engine.models.sources import resolve_job
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
    loaded = load_source(
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


def load_settings_for(*, device: str | None = None, precision: str | None = None, offline: bool | None = None,
                      settings: Any = None) -> Any:
    """``settings`` (default: the user's saved settings) with the given options applied; an ``offline`` given
    here is set at once (the hub client reads it when first imported), the saved one is left to start-up
    (``lm_workbench.models.network``). The saved settings file is not changed."""
    from lm_workbench.models.network import apply_offline_mode

    if settings is None:
        from lm_workbench.settings import load_settings

        settings = load_settings()
    for field, value in (("device", device), ("precision", precision), ("offline", offline)):
        if value is not None:
            setattr(settings, field, value)
    if offline is not None:
        apply_offline_mode(offline)
    return settings


def load_model(spec: str, *, device: str | None = None, precision: str | None = None, offline: bool | None = None,
               settings: Any = None, cancel: CancelToken = NEVER_CANCELLED) -> Any:
    """The ``LoadedModel`` that ``spec`` names (any kind: see the module docstring), loaded as the window loads
    it. ``device`` ("auto", "cpu", "cuda", "cuda:1", "mps"), ``precision`` ("auto", "float32", "float16",
    "bfloat16") and ``offline`` override ``settings`` (default: the user's saved settings; None keeps theirs).
    ``WorkbenchError`` with one line when the spec does not load."""
    settings = load_settings_for(device=device, precision=precision, offline=offline, settings=settings)
    return run_to_completion(load_model_job(spec, settings, cancel))

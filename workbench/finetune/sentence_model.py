"""Opening a sentence-embedding run's output folder as a model (STS, Retrieval, Compare, the model box).

A run whose method folds into the weights (full, BitFit, LoRA) saved a sentence-transformers folder as
``OUT/model``, so ``OUT`` opens through ``lm_workbench.engine.models.sources`` like any run folder. One whose method cannot fold
(adapters, prefix, prompt tuning) has only its adapter: ``load_sentence_output`` rebuilds it on its base
(``open``-ed as ``predict`` does) and wraps it (``lm_workbench.engine.sentence.encoder``), with the pooling the run
trained as the model's own (``finetune.json``'s ``pooling``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.models.spec_kinds import ModelSpecKind

MANIFEST = "finetune.json"


def is_sentence_output(spec: str) -> bool:
    """Whether ``spec`` is a sentence-embedding run's folder without a whole model in it (``OUT/model``)."""
    if not spec or not spec.strip():
        return False
    folder = Path(spec).expanduser()
    manifest = folder / MANIFEST
    if not manifest.is_file() or (folder / "model" / "config.json").is_file() or (folder / "config.json").is_file():
        return False
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("task") == "sentence-embedding"
    except (OSError, ValueError, AttributeError):
        return False


def load_sentence_output(spec: str, settings: Any, cancel: CancelToken) -> Generator[Progress, None, Any]:
    """The ``LoadedModel`` of the run in folder ``spec`` (its base plus what its method trained)."""
    from lm_workbench.engine.finetune.saved import load_finetuned, read_manifest
    from lm_workbench.engine.sentence.encoder import loaded_encoder
    from lm_workbench.finetune.methods import finetune_method

    folder = Path(spec).expanduser()
    manifest = read_manifest(folder)
    yield Progress(0, 2, f"loading {spec}: {manifest['method']} on {Path(manifest['base_model']).name}")
    tuned = load_finetuned(folder, finetune_method(manifest["method"]))
    cancel.check()
    loaded = loaded_encoder(tuned.model, tuned.tokenizer, folder, spec, device=getattr(settings, "device", "auto"),
                            precision="float32")
    yield Progress(2, 2, f"loaded {spec}")
    return loaded


# Registered through the lm_workbench.model_specs entry point (pyproject.toml): the loader hands such folders here.
SENTENCE_OUTPUT = ModelSpecKind("sentence-output", claims=is_sentence_output, load=load_sentence_output)

"""Turn an objective plugin, a model and a packed data set into the training loop's ``TrainingTask``.

Every call into the plugin goes through the ``ObjectiveRegistry``'s guarded
calls, so a plugin that raises something unexpected becomes one clear
``PluginFailedError`` line instead of a traceback from deep inside the loop.
The loop owns the corruption randomness: ``make_batch`` receives the loop's
checkpointed numpy generator, so a resumed run masks exactly as an
uninterrupted one. Validation batches are drawn once, with their own fixed
generator, so every evaluation scores the same masked positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from lm_workbench.engine.plugin_api import IGNORE_INDEX, LossContext, model_device
from lm_workbench.engine.training.task import TrainingTask

VALIDATION_SEED = 7919  # mixed with the run's seed: validation corruption never shares the training stream


def masked_accuracy(model: Any, heads: dict, batch: Any) -> dict[str, float]:
    """Share of the scored positions (labels != -100) whose argmax prediction is the label.

    For encoder objectives (MLM and its variants), whose labels sit at the
    input positions: the model's MLM logits ``[batch, seq, vocab]`` are
    compared position by position. BERT's pre-training model names them
    ``prediction_logits``.
    """
    batch = batch.to(model_device(model))
    inputs = {k: v for k, v in batch.inputs.items() if k != "next_sentence_label"}
    with torch.no_grad():
        out = model(**inputs)
    logits = getattr(out, "logits", None)
    if logits is None:
        logits = out.prediction_logits
    scored = batch.labels != IGNORE_INDEX  # [batch, seq]
    if not bool(scored.any()):
        return {}
    correct = logits.argmax(-1)[scored] == batch.labels[scored]
    return {"masked_accuracy": float(correct.float().mean())}


def validation_chunks(n: int, batch_size: int) -> list[list[int]]:
    """Example indices 0..n-1 in batches of ``batch_size``; a last batch of one example joins the one before (an
    objective that pairs examples, next-sentence prediction, cannot make a batch of one: a validation set of
    ``k * batch_size + 1`` examples failed every such run)."""
    chunks = [list(range(start, min(n, start + batch_size))) for start in range(0, n, batch_size)]
    if len(chunks) >= 2 and len(chunks[-1]) == 1:
        chunks[-2].extend(chunks.pop())
    return chunks


def build_task(*, registry: Any, objective_name: str, objective_config: Any, tokenizer: Any, model: Any,
               heads: dict, aux: dict, train_set: Any, validation_set: Any, batch_size: int,
               eval_batches: int, seed: int, encoder: bool) -> TrainingTask:
    """The ``TrainingTask`` of one pre-training run (see the module docstring)."""

    def make_batch(indices: list[int], rng: np.random.Generator) -> Any:
        ids = [train_set[int(i)] for i in indices]
        return registry.make_batch(objective_name, ids, tokenizer, rng, objective_config,
                                   example_ids=[int(i) for i in indices])

    def loss(m: Any, h: dict, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        # The loop passes the heads on each call (under DDP, the wrapped module's own).
        context = LossContext(config=objective_config, heads=h, aux=aux)
        return registry.loss(objective_name, m, batch, context)

    cached: list[Any] = []

    def validation_batches() -> list[Any]:
        if not cached:
            rng = np.random.default_rng([seed, VALIDATION_SEED])
            n = min(len(validation_set), eval_batches * batch_size)
            for indices in validation_chunks(n, batch_size):
                ids = [validation_set[i] for i in indices]
                cached.append(registry.make_batch(objective_name, ids, tokenizer, rng, objective_config,
                                                  example_ids=indices))
        return cached

    return TrainingTask(model=model, heads=heads, train_size=len(train_set), make_batch=make_batch, loss=loss,
                        validation_batches=validation_batches, evaluate=masked_accuracy if encoder else None)

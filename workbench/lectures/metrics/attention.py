"""The Attention view's metrics: the encoder's (or a decoder's own) attention of the step's text and pair.

The encoding is the view's (``lm_workbench.engine.analysis.encode`` with attentions, then ``attention_side``
of the encoder side); the step-by-step panel is ``attention_walkthrough`` for the step's ``layer``, its first
chosen head and the ``step_by_step`` query token (by text, its first occurrence, or by index), as the view
opens it.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, metrics_of


def _side(run: StepRun) -> tuple[Any, Any]:
    def build() -> tuple[Any, Any]:
        from lm_workbench.engine.analysis import encode
        from lm_workbench.engine.attention import AttentionKind, attention_side

        loaded = run.loaded
        encoding = encode(loaded, run.text(), pair=run.inputs.get("pair") or None, attentions=True)
        if encoding.attentions is None:
            raise WorkbenchError(f"{loaded.info.spec} returns no attention weights")
        return encoding, attention_side(encoding, AttentionKind.ENCODER)

    return run.once("side", build)


def _layer_head(run: StepRun) -> tuple[int, int]:
    _enc, side = _side(run)
    layers, heads = side.weights.shape[:2]
    layer = min(int(run.settings.get("layer", 0)), layers - 1)  # the view clamps the layer to the model's
    chosen = run.settings.get("heads", "all")
    picked = list(range(heads)) if chosen == "all" else [int(h) for h in chosen if 0 <= int(h) < heads]
    return layer, (picked or [0])[0]


def _walkthrough(run: StepRun) -> tuple[Any, float]:
    def build() -> tuple[Any, float]:
        import numpy as np

        from lm_workbench.engine.attention_walkthrough import attention_walkthrough

        encoding, side = _side(run)
        steps = run.settings.get("step_by_step")
        if not isinstance(steps, dict):
            raise WorkbenchError("the step opens no step-by-step panel (settings.step_by_step)")
        layer, head = _layer_head(run)
        tokens = list(encoding.tokenized.tokens)
        query = steps.get("query_token", steps.get("query", 0))
        if isinstance(query, str):
            matches = [i for i, t in enumerate(tokens) if t == query]
            if not matches:
                raise WorkbenchError(f"there is no token {query!r} in the sentence")
            query = matches[0]
        walk = attention_walkthrough(run.loaded, encoding.tokenized, layer=layer, head=head, query=int(query))
        gap = float(np.max(np.abs(walk.weights - side.weights[layer, head, int(query)])))
        return walk, gap

    return run.once("walkthrough", build)


def separators(run: StepRun, args: dict[str, Any]) -> float:
    """Separator tokens ([SEP], </s>) in the encoding: 2 for BERT's [CLS] A [SEP] B [SEP]."""
    encoding, _side_ = _side(run)
    sep = getattr(run.loaded.tokenizer, "sep_token", None)
    return float(sum(t == sep for t in encoding.tokenized.tokens)) if sep else 0.0


METRICS = metrics_of(
    "attention",
    Metric("layers", lambda run, args: float(_side(run)[1].weights.shape[0]), "attention layers of the model"),
    Metric("heads", lambda run, args: float(_side(run)[1].weights.shape[1]), "heads per layer"),
    Metric("cells", lambda run, args: float(_side(run)[1].weights.shape[0] * _side(run)[1].weights.shape[1]),
           "cells of the layer × head grid"),
    Metric("layer", lambda run, args: float(_layer_head(run)[0]), "the layer the step shows (clamped as the view "
           "clamps it)"),
    Metric("tokens", lambda run, args: float(len(_side(run)[0].tokenized.tokens)), "tokens of the text (and pair)"),
    Metric("separators", separators, "separator tokens in the encoding"),
    Metric("walkthrough_gap", lambda run, args: _walkthrough(run)[1],
           "largest difference between the step-by-step softmax and the model's own attention row"),
    Metric("walkthrough_sum", lambda run, args: float(_walkthrough(run)[0].weights.sum()),
           "the step-by-step attention weights' sum"),
)

"""Causal language modelling: predict every next token (Radford et al. 2018, 2019, "GPT").

The input is the text as it is; the labels are the input ids themselves and
the loss shifts them, so the logits at position t are scored against the
token at t + 1 (the convention of transformers' ``*ForCausalLM``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.plugin_api import (
    Batch, Family, LossContext, Objective, PositionKind, Preview, Requirements, causal_lm_loss, collate,
    model_device, require_examples, vocab_info,
)


class CausalLM(Objective):
    name = "clm"
    api_version = "3.0"
    families = frozenset({Family.DECODER})
    requires = Requirements(head="causal-lm")
    description = "Predict each token from the ones before it."
    paper = "Radford et al. 2018, Improving Language Understanding by Generative Pre-Training (GPT)"

    @dataclass
    class Config:
        """Causal LM has no settings: nothing is hidden, every next token is scored."""

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        previews = []
        for ids in token_ids:
            ids = [int(i) for i in ids]
            previews.append(Preview(original=ids, input_ids=list(ids), labels=list(ids),
                                    kinds=[PositionKind.UNCHANGED] * len(ids)))
        return collate(previews, vocab_info(tokenizer).pad_id)

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        batch = batch.to(model_device(model))
        loss = causal_lm_loss(model, batch.inputs, batch.labels)  # chunked head + loss when the loop says so
        return loss, {"loss": float(loss.detach())}

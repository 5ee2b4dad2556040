"""A third-party objective: mask a share of the tokens, all with the mask token (BERT without 80/10/10)."""

from dataclasses import dataclass, field

import numpy as np

from engine.plugin_api import (
    IGNORE_INDEX, Family, Objective, PositionKind, Preview, Requirements, collate, model_device,
    token_cross_entropy, vocab_info,
)


class SimpleMask(Objective):
    name = "simple-mask"
    families = frozenset({Family.ENCODER})
    requires = Requirements(head="mlm", tokens=("mask_token",))
    description = "Replace a share of the tokens by the mask token and predict them."
    paper = "Devlin et al. 2019 (BERT), simplified: every selected token becomes the mask token"

    @dataclass
    class Config:
        rate: float = field(default=0.2, metadata={"help": "Chance that a token is masked.", "min": 0.0, "max": 1.0})

    def make_batch(self, token_ids, tokenizer, rng, config, *, example_ids=None):
        info = vocab_info(tokenizer)  # special ids, mask and pad ids, as numpy arrays
        previews = []
        for ids in token_ids:
            ids = np.asarray(ids, dtype=np.int64)
            hit = (rng.random(len(ids)) < config.rate) & ~info.is_special(ids)
            kinds = [PositionKind.MASKED if h else PositionKind.UNCHANGED for h in hit]
            previews.append(Preview(original=ids.tolist(), input_ids=np.where(hit, info.mask_id, ids).tolist(),
                                    labels=np.where(hit, ids, IGNORE_INDEX).tolist(), kinds=kinds,
                                    original_kinds=list(kinds)))
        return collate(previews, info.pad_id)  # padded input_ids, attention_mask and labels

    def loss(self, model, heads, batch):
        batch = batch.to(model_device(model))
        loss = token_cross_entropy(model(**batch.inputs).logits, batch.labels)
        return loss, {"loss": float(loss.detach())}

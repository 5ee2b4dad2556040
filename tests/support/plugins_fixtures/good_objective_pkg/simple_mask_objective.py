"""A third-party objective: mask a share of the tokens, all with the mask token (BERT without 80/10/10)."""

from dataclasses import dataclass

import numpy as np

from lm_workbench.engine.plugin_api import (
    IGNORE_INDEX, Family, Objective, Preview, Requirements, apply_treatments, collate, draw_treatments,
    kinds_from_codes, model_device, select_positions, setting, token_cross_entropy, vocab_info,
)


class SimpleMask(Objective):
    name = "simple-mask"
    api_version = "3.3"  # the plugin API this was written for
    families = frozenset({Family.ENCODER})
    requires = Requirements(head="mlm", tokens=("mask_token",))
    description = "Replace a share of the tokens by the mask token and predict them."
    paper = "Devlin et al. 2019 (BERT), simplified: every selected token becomes the mask token"

    @dataclass
    class Config:
        rate: float = setting(0.2, "Share of the tokens masked.", min=0.0, max=1.0)

    def make_batch(self, token_ids, tokenizer, rng, config, *, example_ids=None):
        info = vocab_info(tokenizer)  # special ids, mask and pad ids, as numpy arrays
        previews = []
        for ids in token_ids:
            ids = np.asarray(ids, dtype=np.int64)
            chosen, _ = select_positions(ids, info, rng, config.rate, whole_words=False)  # BERT's budget
            codes = draw_treatments(rng, len(chosen), mask_prob=1.0, random_prob=0.0)  # all: the mask token
            corrupted, kinds = apply_treatments(ids, chosen, codes, info, rng)
            labels = np.full(len(ids), IGNORE_INDEX, dtype=np.int64)
            labels[chosen] = ids[chosen]
            previews.append(Preview(original=ids.tolist(), input_ids=corrupted.tolist(), labels=labels.tolist(),
                                    kinds=kinds_from_codes(kinds), original_kinds=kinds_from_codes(kinds)))
        return collate(previews, info.pad_id)  # padded input_ids, attention_mask and labels

    def loss(self, model, batch, context):
        # context.config is this run's Config; context.heads and context.aux are empty for this objective.
        batch = batch.to(model_device(model))
        loss = token_cross_entropy(model(**batch.inputs).logits, batch.labels)
        return loss, {"loss": float(loss.detach())}

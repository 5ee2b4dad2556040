"""ELMo's biLM objective (Peters et al. 2018): a forward and a backward next-word language model.

The examples are word ids from a word vocabulary built from the corpus
(``<S> </S> <UNK>`` first, then by decreasing frequency: see
``lm_workbench.engine.plugin_api.build_word_vocabulary``). The model reads each word's
characters, so ``make_batch`` turns the ids back into words and those into
character ids; the targets are the word ids with ``<S>`` before and ``</S>``
after each example. The forward LSTM at word t predicts word t+1 (the last
word predicts ``</S>``), the backward LSTM at word t predicts word t-1 (the
first predicts ``<S>``), both through one softmax over the vocabulary; the
loss is the mean of the two directions' cross-entropies, in nats per word.

Words past the model's softmax (a vocabulary cut to ``vocab_size``) are scored
as ``<UNK>``; their characters still reach the model. ``softmax = "sampled"``
trains with a sampled softmax of ``n_samples`` log-uniform candidates per
step, as bilm-tf does for large vocabularies; validation always scores the
full softmax, so the perplexity curve is the true one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from lm_workbench.engine.plugin_api import (
    setting,
    IGNORE_INDEX, MAX_CHARACTERS_PER_TOKEN, UNK_ID, Batch, Family, LossContext, Objective, PositionKind, Preview,
    Requirements, WorkbenchError, batch_to_char_ids, model_device, pad_rows, require_examples,
)


class BidirectionalLM(Objective):
    name = "bilm"
    api_version = "3.0"
    families = frozenset({Family.BILM})
    requires = Requirements(head="bilm", tokens=("bos_token", "eos_token"))
    description = "Predict each word from the words before it (forward LSTM) and after it (backward LSTM)."
    paper = "Peters et al. 2018, Deep contextualized word representations (ELMo)"

    @dataclass
    class Config:
        """The softmax over the word vocabulary."""

        softmax: str = setting(
            "full", "full: normalise over every word; sampled: over n_samples log-uniform candidates (training only)",
            choices=("full", "sampled"))
        n_samples: int = setting(1024, "Candidate words per step for the sampled softmax.", min=1)

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        rows = [[int(i) for i in ids] for ids in token_ids]
        words = [tokenizer.convert_ids_to_tokens(ids) for ids in rows]
        char_ids = batch_to_char_ids(words, MAX_CHARACTERS_PER_TOKEN)  # [B, T, C]
        bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
        labels = pad_rows([[bos, *ids, eos] for ids in rows], IGNORE_INDEX)  # [B, T+2]
        lengths = np.array([len(ids) for ids in rows])
        mask = (np.arange(char_ids.shape[1])[None, :] < lengths[:, None]).astype(np.int64)
        previews = [Preview(original=ids, input_ids=list(ids), labels=list(ids),
                            kinds=[PositionKind.UNCHANGED] * len(ids)) for ids in rows]
        return Batch(inputs={"char_ids": char_ids, "attention_mask": torch.from_numpy(mask)},
                     labels=torch.from_numpy(labels), previews=previews)

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        if not hasattr(model, "bilm_loss"):  # e.g. wrapped for DDP, whose forward is not the biLM loss
            raise WorkbenchError("bilm trains an ELMo in one process; it does not run under torchrun (DDP) yet")
        config = model.config
        if config.max_characters_per_token != MAX_CHARACTERS_PER_TOKEN:
            raise WorkbenchError(f"bilm feeds {MAX_CHARACTERS_PER_TOKEN} characters per word; this model reads "
                                 f"{config.max_characters_per_token}")
        batch = batch.to(model_device(model))
        labels = batch.labels
        targets = labels.masked_fill((labels >= config.vocab_size) & (labels != IGNORE_INDEX), UNK_ID)
        sampled = context.config.softmax == "sampled" and model.training
        n_samples = min(int(context.config.n_samples), config.vocab_size) if sampled else 0
        out = model.bilm_loss(batch.inputs["char_ids"], targets, n_samples=n_samples)
        return out.loss, {"loss": float(out.loss.detach()), "forward_loss": float(out.forward_loss.detach()),
                          "backward_loss": float(out.backward_loss.detach())}

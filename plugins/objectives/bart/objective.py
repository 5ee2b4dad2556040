"""BART's denoising objective (Lewis et al. 2020, "BART: Denoising Sequence-to-Sequence Pre-training").

The encoder reads a corrupted document and the decoder is trained to write
the original (seq2seq labels). The noising functions compose in a fixed
order: sentence permutation -> token masking / token deletion / text
infilling -> document rotation; each can be switched off (a rate of 0). The
defaults are those of the final BART model: text infilling of 30% of the
tokens with Poisson(3) spans, and all sentences permuted. See ``noise``
for each function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.plugin_api import (
    setting,
    Batch, Family, LossContext, Objective, Preview, Requirements, VocabInfo, WorkbenchError, collate,
    draw_poisson_lengths, kinds_from_codes, require_examples, round_half_up, seq2seq_denoising_loss,
    trim_to_budget, vocab_info,
)
from lm_workbench.plugins.objectives.bart.noise import build_input, permute_sentences, place_spans, rotate


def _pick(rng: np.random.Generator, candidates: np.ndarray, rate: float, of: int) -> np.ndarray:
    k = min(len(candidates), round_half_up(rate * of)) if rate > 0 else 0
    return rng.choice(candidates, size=k, replace=False) if k else np.zeros(0, dtype=np.int64)


class BART(Objective):
    name = "bart"
    api_version = "3.0"
    families = frozenset({Family.ENCODER_DECODER})
    requires = Requirements(head="seq2seq-lm", tokens=("mask_token",))
    description = "Corrupt the document (permute, mask, delete, infill, rotate) and reconstruct the original."
    paper = "Lewis et al. 2020, BART: Denoising Sequence-to-Sequence Pre-training for Natural Language Generation"

    @dataclass
    class Config:
        sentence_permutation: float = setting(
            1.0, "Fraction of the sentences (split after full stops) shuffled among themselves; 0 is off, 1 shuffles "
            "all.", min=0.0, max=1.0)
        token_masking: float = setting(
            0.0, "Fraction of the tokens replaced by the mask token; 0 is off.", min=0.0, max=1.0)
        token_deletion: float = setting(0.0, "Fraction of the tokens deleted; 0 is off.", min=0.0, max=1.0)
        text_infilling: float = setting(
            0.3, "Fraction of the tokens hidden in spans, each span replaced by one mask token; 0 is off.",
            min=0.0, max=1.0)
        poisson_lambda: float = setting(
            3.0, "Mean span length of text infilling (spans ~ Poisson(lambda); length 0 inserts a mask).",
            min=0.5, max=20.0)
        document_rotation: bool = setting(
            False, "Rotate the document to start at a uniformly chosen token (BOS and EOS stay).")

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        functions = (config.sentence_permutation, config.token_masking, config.token_deletion,
                     config.text_infilling, float(config.document_rotation))
        if not any(functions):
            raise WorkbenchError("bart: every noising function is off; set at least one rate above 0")
        if config.token_masking + config.token_deletion + config.text_infilling > 1.0 + 1e-9:
            raise WorkbenchError("bart: token_masking + token_deletion + text_infilling must be at most 1")

    def corrupt(self, ids: np.ndarray, info: VocabInfo, rng: np.random.Generator, config: Any) -> Preview:
        n = len(ids)
        special = info.is_special(ids)
        slots = np.flatnonzero(~special)
        m = len(slots)
        seq, origin = ids.copy(), np.arange(n)
        if config.sentence_permutation > 0 and m > 1:  # 1. sentence permutation
            order = permute_sentences(ids[slots], info, rng, config.sentence_permutation)
            seq[slots], origin[slots] = ids[slots][order], slots[order]

        free = ~special  # 2. token masking, token deletion, text infilling
        masked = np.zeros(n, dtype=bool)
        masked[_pick(rng, slots, config.token_masking, m)] = True
        free &= ~masked
        deleted = np.zeros(n, dtype=bool)
        deleted[_pick(rng, np.flatnonzero(free), config.token_deletion, m)] = True
        free &= ~deleted
        spans: list[tuple[int, int]] = []
        if config.text_infilling > 0 and m:
            budget = min(int(free.sum()), round_half_up(config.text_infilling * m))
            lengths = trim_to_budget(draw_poisson_lengths(budget, config.poisson_lambda, rng), budget)
            spans = place_spans(lengths, free, rng, int(slots[0]), int(slots[-1]) + 1)
        if (masked.any() or spans) and info.mask_id is None:
            raise WorkbenchError("bart: token masking and text infilling need a mask token, and the tokenizer has none")
        noised = build_input(seq, origin, masked, deleted, spans, info.mask_id)

        if config.document_rotation:  # 3. document rotation; specials (BOS, EOS) stay in place
            rotate(noised, (noised.origin >= 0) & special[np.maximum(noised.origin, 0)], rng)
        return Preview(
            original=ids.tolist(), input_ids=noised.ids.tolist(), labels=ids.tolist(),
            kinds=kinds_from_codes(noised.kinds), original_kinds=kinds_from_codes(noised.original_kinds),
            origin=noised.origin.tolist(), spans=noised.spans, labels_aligned=False,
        )

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        info = vocab_info(tokenizer)
        previews = [self.corrupt(np.asarray(ids, dtype=np.int64), info, rng, config) for ids in token_ids]
        return collate(previews, info.pad_id)

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        return seq2seq_denoising_loss(model, batch)

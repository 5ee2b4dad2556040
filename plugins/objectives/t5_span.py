"""T5's span corruption (Raffel et al. 2020, "Exploring the Limits of Transfer Learning", section 3.1.4).

As T5's ``random_spans_noise_mask`` (the plugin API's ``random_spans_noise_mask``
and ``apply_sentinels``): of the L non-special tokens,
n_noise = round(0.15 L) are noise (at least 1, at most L - 1), in
n_spans = round(n_noise / 3) spans (at least 1); the noise lengths are a
uniformly random split of n_noise into n_spans positive parts, the non-noise
lengths likewise, and they interleave starting with non-noise (so the text
ends in noise). Rounding is half-to-even, as ``tf.round``. Each noise span is
replaced in the input by its own sentinel, in order (<extra_id_0>,
<extra_id_1>, ...); the target lists each sentinel followed by the span it
stands for, then a closing sentinel and EOS: "Thank you <X> me to your party
<Y> week." -> "<X> for inviting <Y> last <Z>". A tokenizer with k sentinels
allows at most k - 1 spans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.plugin_api import (
    setting,
    Batch, Family, LossContext, Objective, PositionKind, Preview, Requirements, WorkbenchError, apply_sentinels,
    collate, random_spans_noise_mask, require_examples, seq2seq_denoising_loss, vocab_info,
)


class T5SpanCorruption(Objective):
    name = "t5-span"
    api_version = "3.0"
    families = frozenset({Family.ENCODER_DECODER})
    requires = Requirements(head="seq2seq-lm", tokens=("sentinels",))
    description = "Replace random spans (15% of the tokens, mean length 3) by sentinels; predict the spans."
    paper = "Raffel et al. 2020, Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer"

    @dataclass
    class Config:
        noise_density: float = setting(0.15, "Fraction of the non-special tokens hidden in spans.", min=0.0, max=0.95)
        mean_span_length: float = setting(3.0, "Mean length of a noise span, in tokens.", min=1.0, max=64.0)

    def corrupt(self, ids: np.ndarray, info: Any, rng: np.random.Generator, config: Any) -> Preview:
        if len(info.sentinel_ids) < 2:
            raise WorkbenchError("t5-span needs sentinel tokens (<extra_id_0>, ...), and the tokenizer has none")
        eligible = np.flatnonzero(~info.is_special(ids))
        noise = np.zeros(len(ids), dtype=bool)
        if config.noise_density > 0 and len(eligible):
            noise[eligible] = random_spans_noise_mask(len(eligible), rng, config.noise_density,
                                                      config.mean_span_length, len(info.sentinel_ids) - 1)
        result = apply_sentinels(ids, noise, info.sentinel_ids, info.eos_id)
        original_kinds = [PositionKind.MASKED if x else PositionKind.UNCHANGED for x in noise]
        return Preview(original=ids.tolist(), input_ids=result.inputs, labels=result.targets, kinds=result.kinds,
                       original_kinds=original_kinds, origin=result.origin, spans=result.spans,
                       labels_aligned=False)

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        info = vocab_info(tokenizer)
        previews = [self.corrupt(np.asarray(ids, dtype=np.int64), info, rng, config) for ids in token_ids]
        return collate(previews, info.pad_id)

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        return seq2seq_denoising_loss(model, batch)

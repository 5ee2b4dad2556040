"""Each preference pair as two sequences, the prompt then the chosen or the rejected answer, labelled on the
answer only.

Both go through the instruction task's encoding (``lm_workbench.engine.instruct.template.encode_prompt_answer``): the
prompt rendered by the run's chat template (the model's own, the plain one, or a file), the answer with the
template's end-of-turn marker; labels are -100 on the prompt, so a sequence's log-probability is summed over
the answer's tokens. Truncation follows that module (an answer longer than the window cut at its end, then the
prompt cut from its left); a pair keeps one prompt for both answers, so when the longer answer leaves less room
the other sequence's prompt loses the same tokens. A pair that cannot be encoded (its prompt would be cut to
nothing, the template refuses it) is skipped, counted and its reason kept.

An encoder-decoder (BART, T5) has no chat template: the prompt text goes to its encoder as is (``PROMPT_AS_IS``;
a conversation's messages joined by blank lines), with the tokenizer's own special tokens, as a sequence-to-sequence
fine-tuning run and ``predict`` give it; each answer (with the tokenizer's end token) is the decoder's target and
every one of its tokens is scored (``encode_seq2seq``: the source cut from its left, the answer at its end).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import torch

from lm_workbench.engine.instruct.template import IGNORE_INDEX, ChatTemplate, Encoded, SkipRecord, encode_prompt_answer, pad_encoded
from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.preference.data import PreferencePair


# An encoder-decoder's "template": the prompt's text as it is (a conversation: its messages' texts, blank lines
# between); no generation prompt, no end-of-turn marker.
PROMPT_AS_IS = ChatTemplate(
    "{%- for message in messages -%}{{ message['content'] }}{%- if not loop.last -%}{{ '\\n\\n' }}{%- endif -%}"
    "{%- endfor -%}", "none",
    "an encoder-decoder has no chat template: the prompt text goes to the encoder as is, the answer is the "
    "decoder's target")


@dataclass
class EncodedPair:
    chosen: Encoded
    rejected: Encoded
    index: int  # the pair's place in the list it was encoded from


@dataclass
class EncodedPairs:
    """The pairs that could be encoded, and what encoding cut or skipped."""

    pairs: list[EncodedPair] = field(default_factory=list)
    prompts_cut: int = 0  # pairs whose prompt lost tokens on its left
    answers_cut: int = 0  # answers (chosen or rejected) cut at their end
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (pair index, reason)

    def as_json(self) -> dict[str, Any]:
        return {"pairs": len(self.pairs), "prompts_cut": self.prompts_cut, "answers_cut": self.answers_cut,
                "skipped": len(self.skipped), "skipped_reasons": [r for _, r in self.skipped[:20]]}


def _prompt_length(encoded: Encoded) -> int:
    """Tokens before the first trained one (a decoder's prompt)."""
    return next((i for i, label in enumerate(encoded.labels) if label != IGNORE_INDEX), len(encoded.labels))


def _cut_prompt(encoded: Encoded, tokens: int) -> Encoded:
    return replace(encoded, input_ids=encoded.input_ids[tokens:], labels=encoded.labels[tokens:],
                   prompt_cut=encoded.prompt_cut + tokens)


def same_prompt(chosen: Encoded, rejected: Encoded) -> tuple[Encoded, Encoded]:
    """Cut the longer of two decoder prompts from its left to the shorter's length (both are suffixes of one
    prompt), so both answers are scored after the same tokens."""
    a, b = _prompt_length(chosen), _prompt_length(rejected)
    if a > b:
        chosen = _cut_prompt(chosen, a - b)
    elif b > a:
        rejected = _cut_prompt(rejected, b - a)
    return chosen, rejected


def encode_pair(tokenizer: Any, template: ChatTemplate, pair: PreferencePair, max_length: int,
                encoder_decoder: bool = False) -> tuple[Encoded, Encoded]:
    """(chosen, rejected) encoded; ``SkipRecord`` with the reason when the pair cannot be."""
    prompt = pair.prompt if isinstance(pair.prompt, str) else [{"role": r, "content": c} for r, c in pair.prompt]
    chosen = encode_prompt_answer(tokenizer, template, prompt, pair.chosen, max_length,
                                  encoder_decoder=encoder_decoder)
    rejected = encode_prompt_answer(tokenizer, template, prompt, pair.rejected, max_length,
                                    encoder_decoder=encoder_decoder)
    if not encoder_decoder:
        chosen, rejected = same_prompt(chosen, rejected)
        if _prompt_length(chosen) == 0:
            raise SkipRecord("the prompt would be cut to nothing")
    return chosen, rejected


def encode_pairs(tokenizer: Any, template: ChatTemplate, pairs: Sequence[PreferencePair], max_length: int,
                 encoder_decoder: bool = False) -> EncodedPairs:
    out = EncodedPairs()
    for index, pair in enumerate(pairs):
        try:
            chosen, rejected = encode_pair(tokenizer, template, pair, max_length, encoder_decoder)
        except SkipRecord as skip:
            out.skipped.append((index, str(skip)))
            continue
        out.prompts_cut += int(chosen.prompt_cut > 0 or rejected.prompt_cut > 0)
        out.answers_cut += int(chosen.answer_cut > 0) + int(rejected.answer_cut > 0)
        out.pairs.append(EncodedPair(chosen, rejected, index))
    return out


def collate_pairs(pairs: Sequence[EncodedPair], pad_id: int) -> Batch:
    """One batch of 2·N rows: the N chosen sequences, then the N rejected ones (right-padded; labels -100 on
    the prompt and the padding)."""
    padded = pad_encoded([p.chosen for p in pairs] + [p.rejected for p in pairs], pad_id)
    return Batch(inputs={"input_ids": padded["input_ids"], "attention_mask": padded["attention_mask"]},
                 labels=padded["labels"], previews=[], extras={"pairs": torch.tensor([p.index for p in pairs])})


def pair_count(batch: Batch) -> int:
    """How many pairs a ``collate_pairs`` batch holds."""
    return int(batch.labels.shape[0]) // 2

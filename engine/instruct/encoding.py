"""A set of instruction examples as training features, with what truncation and skipping did.

Decoders: one feature per conversation (``encode_conversation``: every assistant turn trained). Encoder-decoders:
one feature per assistant turn (the conversation before it as the source, the turn as the target), so every
assistant turn is trained there too. ``trained_tokens`` counts the tokens the loss covers in one pass over the
set and ``total_tokens`` every non-padding token of that pass (an encoder-decoder: source and target); packing
would change neither (the workbench does not pack: each example is its own row, padded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from lm_workbench.engine.instruct.data import InstructExample
from lm_workbench.engine.instruct.template import ChatTemplate, Encoded, SkipRecord, encode_conversation, encode_seq2seq


@dataclass
class EncodedSet:
    features: list[dict[str, Any]]  # input_ids, attention_mask, labels (the fine-tuning collate's shape)
    encoded: list[Encoded]
    sources: list[int]  # per feature: the index of the example it came from
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (example's line, reason)
    prompts_cut: int = 0  # examples whose prompt lost tokens on its left
    answers_cut: int = 0  # examples whose answer was cut at its end

    @property
    def trained_tokens(self) -> int:
        return sum(e.trained for e in self.encoded)

    @property
    def total_tokens(self) -> int:
        return sum(e.total for e in self.encoded)

    def stats(self) -> dict[str, Any]:
        return {"trained_tokens": self.trained_tokens, "total_tokens": self.total_tokens,
                "examples": len(self.features), "records_skipped": len(self.skipped),
                "prompts_truncated": self.prompts_cut, "answers_truncated": self.answers_cut,
                "skipped": [{"line": line, "reason": reason} for line, reason in self.skipped[:20]]}

    def notes(self, what: str) -> list[str]:
        """One line each for what a user must be told (skips, cuts)."""
        out = []
        if self.skipped:
            line, reason = self.skipped[0]
            out.append(f"{what}: {_count(len(self.skipped), 'record')} skipped (first: line {line}: {reason})")
        if self.prompts_cut:
            out.append(f"{what}: {_count(self.prompts_cut, 'prompt')} longer than the window cut from the left")
        if self.answers_cut:
            out.append(f"{what}: {_count(self.answers_cut, 'answer')} longer than the window cut at the end")
        return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _feature(encoded: Encoded) -> dict[str, Any]:
    return {"input_ids": encoded.input_ids, "attention_mask": [1] * len(encoded.input_ids),
            "labels": encoded.labels}


def encode_examples(tokenizer: Any, template: ChatTemplate, examples: Sequence[InstructExample], max_length: int,
                    *, encoder_decoder: bool = False) -> EncodedSet:
    """Each example as a feature (see the module); records the template or the window refuses are skipped."""
    out = EncodedSet([], [], [])
    for index, example in enumerate(examples):
        messages = example.as_messages()
        try:
            if encoder_decoder:
                items = [encode_seq2seq(tokenizer, template, messages[:i], m["content"], max_length)
                         for i, m in enumerate(messages) if m["role"] == "assistant"]
            else:
                items = [encode_conversation(tokenizer, template, messages, max_length)]
        except SkipRecord as reason:
            out.skipped.append((example.line, str(reason)))
            continue
        for item in items:
            out.features.append(_feature(item))
            out.encoded.append(item)
            out.sources.append(index)
            out.prompts_cut += item.prompt_cut > 0
            out.answers_cut += item.answer_cut > 0
    return out

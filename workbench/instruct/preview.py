"""The Fine-tune tab's instruct preview: what the loss will cover, before any training.

``preview_job(tokenizer, train, template, max_length, batch_size)`` reads the training file
(``lm_workbench.engine.instruct.data``), resolves the chat template (``lm_workbench.engine.instruct.template.resolve_template``) and encodes
every record as training will (``lm_workbench.engine.instruct.encoding``); it returns an ``InstructPreview``: the template's
text and where it came from (and the note when ``auto`` fell back to plain), the first ``EXAMPLES_SHOWN``
examples as tokens with a trained / not-trained flag each, the trained and total tokens of each batch of
``batch_size`` examples in file order (training shuffles them; the counts per batch vary around the same mean),
and what was skipped or cut; and the demonstration data itself: how many examples each category has and
``SAMPLES_PER_CATEGORY`` prompts with their answers from each. An encoder-decoder's tokens are its encoder input (none trained) and its target
(all trained), shown one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EXAMPLES_SHOWN = 200
SAMPLES_PER_CATEGORY = 2


@dataclass
class PreviewExample:
    tokens: list[str]
    trained: list[bool]
    prompt: str
    category: str | None
    line: int

    @property
    def trained_count(self) -> int:
        return sum(self.trained)


@dataclass
class InstructPreview:
    template_text: str
    template_source: str
    template_note: str
    examples: list[PreviewExample] = field(default_factory=list)
    batch_trained: list[int] = field(default_factory=list)  # per batch of batch_size examples, in file order
    batch_total: list[int] = field(default_factory=list)
    trained_tokens: int = 0
    total_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    batch_size: int = 16
    # the demonstration data: examples per category over the whole file (first-seen order; "" = none given)
    # and up to SAMPLES_PER_CATEGORY (category, prompt, answer) of each, for the Data page
    category_counts: dict[str, int] = field(default_factory=dict)
    samples: list[tuple[str, str, str]] = field(default_factory=list)


def _tokens(tokenizer: Any, ids: list[int]) -> list[str]:
    return [tokenizer.decode([i]) for i in ids]


def build_preview(tokenizer: Any, train: str, template_choice: str, max_length: int, batch_size: int,
                  encoder_decoder: bool = False) -> InstructPreview:
    from lm_workbench.engine.instruct.data import read_instructions
    from lm_workbench.engine.instruct.encoding import encode_examples
    from lm_workbench.engine.instruct.template import resolve_template

    data = read_instructions(train)
    template = resolve_template(tokenizer, template_choice)
    encoded = encode_examples(tokenizer, template, data, max_length, encoder_decoder=encoder_decoder)
    out = InstructPreview(template.text, template.source, template.note, batch_size=batch_size,
                          trained_tokens=encoded.trained_tokens, total_tokens=encoded.total_tokens)
    if data.report.rows_skipped:
        out.notes.append(f"{train}: {data.report.summary()}")
    out.notes += encoded.notes("training")
    taken: dict[str, int] = {}
    for example in data:
        name = example.category or ""
        out.category_counts[name] = out.category_counts.get(name, 0) + 1
        if taken.get(name, 0) < SAMPLES_PER_CATEGORY:
            taken[name] = taken.get(name, 0) + 1
            out.samples.append((name, example.prompt_text, example.reference))
    out.samples.sort(key=lambda s: list(out.category_counts).index(s[0]))  # grouped by category
    for item, source in list(zip(encoded.encoded, encoded.sources))[:EXAMPLES_SHOWN]:
        example = data[source]
        if encoder_decoder:
            tokens = _tokens(tokenizer, item.input_ids) + _tokens(tokenizer, item.labels)
            trained = [False] * len(item.input_ids) + [True] * len(item.labels)
        else:
            tokens, trained = _tokens(tokenizer, item.input_ids), item.trained_mask
        out.examples.append(PreviewExample(tokens, trained, example.prompt_text, example.category, example.line))
    for start in range(0, len(encoded.encoded), batch_size):
        batch = encoded.encoded[start:start + batch_size]
        out.batch_trained.append(sum(e.trained for e in batch))
        out.batch_total.append(sum(e.total for e in batch))
    return out


def preview_job(tokenizer: Any, train: str, template_choice: str, max_length: int, batch_size: int,
                encoder_decoder: bool = False):
    """``fn(cancel) -> InstructPreview`` for the view's job bridge."""

    def job(cancel: Any):
        return build_preview(tokenizer, train, template_choice, max_length, batch_size, encoder_decoder)

    return job

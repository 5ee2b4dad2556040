"""Prompt/answer formatting and label masks for instruction tuning (and for preference tuning built on it).

A conversation is a list of messages ``{"role": "system"|"user"|"assistant", "content": str}``. It becomes
text through a *chat template*, a Jinja template in the form ``transformers`` uses
(``tokenizer.apply_chat_template``): the model's own (``tokenizer.chat_template``), the workbench's plain
one (``PLAIN_TEMPLATE``, below) or one read from a file. ``resolve_template(tokenizer, "auto"|"plain"|PATH)``
chooses; ``auto`` without a model template falls back to plain and says so in ``ChatTemplate.note``.

The plain template (shown and editable in the Fine-tune tab; save an edit to a file and pass ``--template
FILE``)::

    SYSTEM TEXT\\n\\n                     (a system message, if any)
    ### Instruction:\\nUSER TEXT\\n\\n      (each user turn)
    ### Response:\\nASSISTANT TEXT<eos>    (each assistant turn; the generation prompt is "### Response:\\n")

Which tokens the loss covers (decoders, ``encode_conversation``): for every assistant turn, the text the
template adds between the conversation so far rendered *with* the generation prompt and the conversation
rendered *with* that turn: the answer and the template's end-of-turn marker (``<eos>`` above, ``<|im_end|>``
in ChatML), never the "### Response:" header, the user or system turns. Each such piece and each piece between
them is tokenized on its own (``add_special_tokens=False``; the template writes any BOS), so the prompt's tokens
are exactly those a generation from the same prompt sees. Labels are the token ids on trained tokens and
``IGNORE_INDEX`` (-100) on the rest and on padding (``pad_encoded``).

Truncation to ``max_length`` tokens (the *answer* is the last assistant turn, the *prompt* everything before it):

- an answer longer than the window is cut at its end to ``max_length - min(len(prompt), max(1, max_length // 4))``
  tokens (``Encoded.answer_cut`` counts the tokens dropped);
- then a prompt that does not fit beside the answer loses tokens from its left (``Encoded.prompt_cut``);
- a record whose prompt would be cut to nothing (or that has no prompt) is skipped: ``SkipRecord``.

Encoder-decoders (BART, T5; ``encode_seq2seq``): the prompt rendered with the generation prompt goes to the
encoder (the tokenizer's special tokens kept, the text cut from the left), the answer's tokens are the labels
(cut at their end); every label is trained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError

IGNORE_INDEX = -100
ROLES = ("system", "user", "assistant")

PLAIN_TEMPLATE = (
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'system' -%}{{ message['content'] }}{{ '\\n\\n' }}"
    "{%- elif message['role'] == 'user' -%}{{ '### Instruction:\\n' }}{{ message['content'] }}{{ '\\n\\n' }}"
    "{%- elif message['role'] == 'assistant' -%}{{ '### Response:\\n' }}{{ message['content'] }}{{ eos_token }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '### Response:\\n' }}{%- endif -%}"
)

Message = dict  # {"role": ..., "content": ...}


class SkipRecord(Exception):
    """A record that cannot become a training example; ``str(error)`` is the reason (counted, said)."""


@dataclass(frozen=True)
class ChatTemplate:
    text: str  # the Jinja source
    source: str  # "tokenizer" (the model's own), "plain", or the file it was read from
    note: str = ""  # what a user should be told (e.g. "the model has no chat template: the plain one is used")

    @property
    def name(self) -> str:
        return {"tokenizer": "the model's chat template", "plain": "the plain template"}.get(
            self.source, f"the template in {self.source}")


def resolve_template(tokenizer: Any, choice: str = "auto") -> ChatTemplate:
    """``auto``: the tokenizer's ``chat_template`` when it has one, else plain (noted); ``plain``; else a file."""
    choice = (choice or "auto").strip()
    if choice == "auto":
        own = getattr(tokenizer, "chat_template", None)
        if isinstance(own, dict):  # several named templates: the default one
            own = own.get("default") or next(iter(own.values()), None)
        if isinstance(own, str) and own.strip():
            return ChatTemplate(own, "tokenizer")
        return ChatTemplate(PLAIN_TEMPLATE, "plain",
                            "Auto template: the model has no chat template of its own, so the plain template is used")
    if choice == "plain":
        return ChatTemplate(PLAIN_TEMPLATE, "plain")
    path = Path(choice).expanduser()
    if not path.is_file():
        raise WorkbenchError(f"--template {choice}: not auto, plain or a template file")
    from lm_workbench.engine.text_input import read_text_file

    text = read_text_file(path)
    if not text.strip():
        raise WorkbenchError(f"the template file {path} is empty")
    return ChatTemplate(text, str(path))


def as_messages(prompt: str | Sequence[Message]) -> list[Message]:
    """A prompt given as text (one user turn) or as messages, as a list of messages."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in prompt]


def render(tokenizer: Any, template: ChatTemplate, messages: Sequence[Message],
           add_generation_prompt: bool = False) -> str:
    """The conversation as text; ``SkipRecord`` when the template refuses it (e.g. roles not alternating)."""
    for message in messages:
        if message.get("role") not in ROLES:
            raise SkipRecord(f"unknown role {message.get('role')!r} (roles: {', '.join(ROLES)})")
    try:
        text = tokenizer.apply_chat_template(list(messages), chat_template=template.text, tokenize=False,
                                             add_generation_prompt=add_generation_prompt)
    except Exception as exc:  # jinja2's TemplateError, raise_exception() in a model's template
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SkipRecord(f"the template refused it: {message}") from None
    if not isinstance(text, str):
        raise WorkbenchError("the chat template did not render to text")
    return text


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def conversation_pieces(tokenizer: Any, template: ChatTemplate, messages: Sequence[Message]) -> list[tuple[str, bool]]:
    """The conversation (up to its last assistant turn) as text pieces, each ``(text, trained)``.

    Trailing turns after the last assistant turn have nothing to learn and are left out; a conversation with
    no assistant turn is a ``SkipRecord``. A template that renders earlier turns differently once later ones
    follow leaves such an earlier answer untrained (the last one is found by the longest common prefix).
    """
    messages = as_messages(messages)
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
    if last is None:
        raise SkipRecord("no assistant turn (nothing to learn)")
    messages = messages[:last + 1]
    full = render(tokenizer, template, messages)
    spans: list[tuple[int, int]] = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        before = render(tokenizer, template, messages[:i], add_generation_prompt=True) if i else ""
        after = full if i == last else render(tokenizer, template, messages[:i + 1])
        if full.startswith(after) and after.startswith(before):
            start, end = len(before), len(after)
        elif i == last:
            start, end = _common_prefix(before, full), len(full)
        else:
            continue
        if spans and start < spans[-1][1]:
            continue
        if end > start:
            spans.append((start, end))
    pieces, at = [], 0
    for start, end in spans:
        if start > at:
            pieces.append((full[at:start], False))
        pieces.append((full[start:end], True))
        at = end
    if at < len(full):
        pieces.append((full[at:], False))
    return pieces


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []


@dataclass
class Encoded:
    """One example: ``input_ids`` and ``labels`` (-100 where no loss); for an encoder-decoder ``labels`` is
    the decoder's target. ``prompt_cut``/``answer_cut``: tokens dropped by truncation."""

    input_ids: list[int]
    labels: list[int]
    prompt_cut: int = 0
    answer_cut: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def trained(self) -> int:
        """Tokens the loss covers."""
        return sum(1 for label in self.labels if label != IGNORE_INDEX)

    @property
    def total(self) -> int:
        """Every (non-padding) token: a decoder's sequence; an encoder-decoder's source plus target."""
        return len(self.input_ids) + (self.trained if self.meta.get("encoder_decoder") else 0)

    @property
    def trained_mask(self) -> list[bool]:
        """Per input token: does the loss cover it (decoders; for an encoder-decoder every input is context)."""
        if self.meta.get("encoder_decoder"):
            return [False] * len(self.input_ids)
        return [label != IGNORE_INDEX for label in self.labels]


def fit_answer(prompt_len: int, answer_len: int, max_length: int) -> tuple[int, int]:
    """(answer tokens kept, prompt tokens kept) under the module's truncation rule; ``SkipRecord`` when the
    prompt would be cut to nothing."""
    if prompt_len == 0:
        raise SkipRecord("no prompt before the answer")
    if answer_len > max_length:
        answer_len = max_length - min(prompt_len, max(1, max_length // 4))
    room = max_length - answer_len
    if room <= 0:
        raise SkipRecord(f"the prompt would be cut to nothing (the answer takes all {max_length} tokens)")
    return answer_len, min(prompt_len, room)


def encode_conversation(tokenizer: Any, template: ChatTemplate, messages: Sequence[Message],
                        max_length: int) -> Encoded:
    """A decoder's example: ids and labels with the loss on every assistant turn (see the module)."""
    ids: list[int] = []
    trained: list[bool] = []
    pieces = conversation_pieces(tokenizer, template, messages)
    answer_start = 0
    for text, is_trained in pieces:
        piece = _ids(tokenizer, text)
        if is_trained:
            answer_start = len(ids)
        ids += piece
        trained += [is_trained] * len(piece)
    # the answer: the last trained piece (and any untrained text the template adds after it)
    prompt_ids, prompt_trained = ids[:answer_start], trained[:answer_start]
    answer_ids, answer_trained = ids[answer_start:], trained[answer_start:]
    keep_answer, keep_prompt = fit_answer(len(prompt_ids), len(answer_ids), max_length)
    answer_cut = len(answer_ids) - keep_answer
    prompt_cut = len(prompt_ids) - keep_prompt
    ids = prompt_ids[prompt_cut:] + answer_ids[:keep_answer]
    trained = prompt_trained[prompt_cut:] + answer_trained[:keep_answer]
    labels = [token if flag else IGNORE_INDEX for token, flag in zip(ids, trained)]
    if not any(flag for flag in trained):
        raise SkipRecord("the answer has no tokens")
    return Encoded(ids, labels, prompt_cut, answer_cut)


def encode_prompt_answer(tokenizer: Any, template: ChatTemplate, prompt: str | Sequence[Message], answer: str,
                         max_length: int, *, encoder_decoder: bool = False) -> Encoded:
    """The prompt (text or messages) answered by ``answer``: the loss on the answer only. Decoders:
    ``encode_conversation``; encoder-decoders: ``encode_seq2seq``. (Preference tuning scores chosen and
    rejected answers through this.)"""
    if encoder_decoder:
        return encode_seq2seq(tokenizer, template, prompt, answer, max_length)
    messages = as_messages(prompt) + [{"role": "assistant", "content": answer}]
    return encode_conversation(tokenizer, template, messages, max_length)


def encode_seq2seq(tokenizer: Any, template: ChatTemplate, prompt: str | Sequence[Message], answer: str,
                   max_length: int) -> Encoded:
    """An encoder-decoder's example: the rendered prompt (with the generation prompt) as the source, cut from
    its left with the tokenizer's special tokens kept; the answer's ids (with the tokenizer's end token) as the
    labels, cut at their end."""
    source = render(tokenizer, template, as_messages(prompt), add_generation_prompt=True)
    full = list(tokenizer(source)["input_ids"])
    plain = _ids(tokenizer, source)
    target = list(tokenizer(text_target=answer)["input_ids"])
    lead = next((i for i in range(len(full) - len(plain) + 1) if full[i:i + len(plain)] == plain), None)
    if not plain:
        raise SkipRecord("no prompt before the answer")
    if not answer.strip():
        raise SkipRecord("the answer is empty")
    prompt_cut = answer_cut = 0
    if len(target) > max_length:
        answer_cut, target = len(target) - max_length, target[:max_length]
    if len(full) > max_length:
        if lead is None:
            prompt_cut, full = len(full) - max_length, full[len(full) - max_length:]
        else:
            prefix, suffix = full[:lead], full[lead + len(plain):]
            room = max_length - len(prefix) - len(suffix)
            if room <= 0:
                raise SkipRecord("the prompt would be cut to nothing")
            prompt_cut = len(plain) - room
            full = prefix + plain[-room:] + suffix
    return Encoded(full, target, prompt_cut, answer_cut, {"encoder_decoder": True})


def generation_prompt_ids(tokenizer: Any, template: ChatTemplate, prompt: str | Sequence[Message],
                          max_length: int, *, encoder_decoder: bool = False) -> list[int]:
    """The token ids a model is given to answer ``prompt`` (the same tokens training saw before an answer):
    decoders, the rendered prompt with the generation prompt, cut from the left to ``max_length``."""
    if encoder_decoder:
        return encode_seq2seq(tokenizer, template, prompt, "x", max_length).input_ids
    text = render(tokenizer, template, as_messages(prompt), add_generation_prompt=True)
    ids = _ids(tokenizer, text)
    return ids[-max_length:] if max_length > 0 else ids


def pad_encoded(examples: Sequence[Encoded], pad_id: int) -> dict[str, Any]:
    """Right-padded tensors: ``input_ids``, ``attention_mask`` (0 on padding) and ``labels`` (-100 on padding;
    an encoder-decoder's labels padded to the longest target)."""
    import torch

    width = max(len(e.input_ids) for e in examples)
    label_width = max(len(e.labels) for e in examples)
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    labels = torch.full((len(examples), label_width), IGNORE_INDEX, dtype=torch.long)
    for row, example in enumerate(examples):
        n = len(example.input_ids)
        ids[row, :n] = torch.tensor(example.input_ids, dtype=torch.long)
        mask[row, :n] = 1
        labels[row, :len(example.labels)] = torch.tensor(example.labels, dtype=torch.long)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}

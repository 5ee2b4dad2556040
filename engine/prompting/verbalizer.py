"""Verbalizers: each label's answer words, parsed from ``"pos=great,good;neg=terrible,bad"``.

How an answer is tokenized depends on the model and on what precedes it. ``answer_token_ids`` follows the
rule the scoring uses: the answer's tokens are those of ``tokenize(before + answer)`` after the tokens of
``before`` (the text up to ``[z]`` with its trailing spaces moved onto the answer), so a BPE model's merge of
the leading space into the word is what is scored. Encoder-decoders score the answer as a target text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lm_workbench.engine.data.labels import label_key
from lm_workbench.engine.errors import WorkbenchError


@dataclass(frozen=True)
class AnswerTokens:
    """One answer word as the model will score it."""

    label: str
    answer: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class Verbalizer:
    """Labels (in order) mapped to one or more answer words each."""

    answers: tuple[tuple[str, tuple[str, ...]], ...]  # ((label, (answer, ...)), ...)

    @classmethod
    def parse(cls, text: str) -> "Verbalizer":
        """``label=word,word;label=word``; a ``WorkbenchError`` naming what is wrong otherwise."""
        if text is None or not text.strip():
            raise WorkbenchError("the verbalizer is empty: write label=word,word;label=word "
                                 "(e.g. pos=great,good;neg=terrible,bad)")
        entries: list[tuple[str, tuple[str, ...]]] = []
        for part in text.split(";"):
            if not part.strip():
                continue
            if "=" not in part:
                raise WorkbenchError(f"verbalizer entry {part.strip()!r} has no '=': write label=word,word")
            label, words = part.split("=", 1)
            label = label.strip()
            answers = tuple(w.strip() for w in words.split(",") if w.strip())
            if not label:
                raise WorkbenchError(f"verbalizer entry {part.strip()!r} has no label before '='")
            if not answers:
                raise WorkbenchError(f"label {label!r} has no answer words: write {label}=word,word")
            if any(label == seen for seen, _ in entries):
                raise WorkbenchError(f"label {label!r} appears twice in the verbalizer")
            entries.append((label, answers))
        return cls.from_mapping(dict(entries))

    @classmethod
    def from_mapping(cls, mapping: dict[str, Any]) -> "Verbalizer":
        """From ``{label: [answer, ...]}`` (a prompt-set file's form)."""
        entries = tuple((str(label), tuple(str(a) for a in answers)) for label, answers in mapping.items())
        if len(entries) < 2:
            raise WorkbenchError(f"the verbalizer has {len(entries)} label(s); it needs at least two")
        keys: dict[str, str] = {}
        for label, _ in entries:
            other = keys.setdefault(label_key(label), label)
            if other != label:
                raise WorkbenchError(f"the verbalizer's labels {other!r} and {label!r} are one class (the same "
                                     f"number or text); give it once")
        for label, answers in entries:
            if not answers:
                raise WorkbenchError(f"label {label!r} has no answer words")
        return cls(entries)

    @property
    def labels(self) -> list[str]:
        return [label for label, _ in self.answers]

    def answers_for(self, label: str) -> tuple[str, ...]:
        """The answer words of ``label`` (matched as the label rule says: ``1`` is ``1.0``)."""
        for name, words in self.answers:
            if name == label or label_key(name) == label_key(label):
                return words
        raise WorkbenchError(f"label {label!r} is not in the verbalizer (labels: {', '.join(self.labels)})")

    def to_text(self) -> str:
        return ";".join(f"{label}={','.join(words)}" for label, words in self.answers)

    def to_mapping(self) -> dict[str, list[str]]:
        return {label: list(words) for label, words in self.answers}

    def require_labels(self, labels: list[str], where: str = "the data") -> None:
        """Refuse data whose labels the verbalizer does not cover (by the label rule: ``1`` covers ``1.0``)."""
        covered = {label_key(label) for label in self.labels}
        missing = [label for label in labels if label_key(label) not in covered]
        if missing:
            raise WorkbenchError(f"label {missing[0]!r} in {where} has no answer words in the verbalizer "
                                 f"(it covers {', '.join(self.labels)}); add {missing[0]}=word")

    def respelled(self, labels: list[str]) -> tuple["Verbalizer", list[str]]:
        """This verbalizer with each label written as the data writes it (``labels``) where the label rule makes
        them one class (``1.0`` here, ``1`` there), and a note for each label respelled."""
        spelling = {label_key(label): label for label in labels}
        entries, notes = [], []
        for label, words in self.answers:
            data_label = spelling.get(label_key(label), label)
            if data_label != label:
                notes.append(f"verbalizer label {label!r} is the data's label {data_label!r} (the same number or text)")
            entries.append((data_label, words))
        return (Verbalizer(tuple(entries)) if notes else self), notes

    def tokenizations(self, tokenizer: Any, mode: str = "cloze", before: str = "It was ",
                      encoder_decoder: bool = False) -> list[AnswerTokens]:
        """Every answer's tokens after the text ``before`` (the template's text up to [z]), label by label.

        Cloze and prefix ``mode`` follow the same rule (the tokens after ``before``'s); an encoder-decoder
        scores the answer as a target text. ``scoring.answer_tokenizations`` fills these in from a template.
        """
        if mode not in ("cloze", "prefix"):
            raise WorkbenchError(f"the template mode must be cloze or prefix, not {mode!r}")
        out = []
        for label, words in self.answers:
            for word in words:
                ids = answer_token_ids(tokenizer, before, word, encoder_decoder=encoder_decoder)
                out.append(AnswerTokens(label, word, tuple(ids), tuple(tokenizer.convert_ids_to_tokens(ids))))
        return out


def split_space(before: str) -> tuple[str, str]:
    """(``before`` without its trailing spaces, those spaces): the spaces belong to the answer."""
    stripped = before.rstrip(" ")
    return stripped, before[len(stripped):]


def _plain_ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []


def answer_token_ids(tokenizer: Any, before: str, answer: str, *, encoder_decoder: bool = False) -> list[int]:
    """The answer's token ids as scored after ``before``: tokens of ``before + answer`` past ``before``'s."""
    if encoder_decoder:
        ids = _plain_ids(tokenizer, answer.strip())
    else:
        context, space = split_space(before)
        head = _plain_ids(tokenizer, context)
        whole = _plain_ids(tokenizer, context + space + answer)
        if whole[:len(head)] == head:
            ids = whole[len(head):]
        else:  # the answer merged with the text before it: score it on its own, with its space
            ids = _plain_ids(tokenizer, space + answer)
    if not ids:
        raise WorkbenchError(f"the answer {answer!r} gives no tokens for this model")
    return ids

"""Prompt templates with slots: ``[x]`` (the input), ``[x2]`` (the pair's second text), ``[z]`` (the answer).

A *cloze* template is scored by a masked LM: ``[z]`` becomes one mask token per answer subword, anywhere in
the text ("[x] Overall, it was a [z] movie."). A *prefix* template is scored by a left-to-right LM or an
encoder-decoder: the model continues the text before ``[z]``, so ``[z]`` must end it ("[x] Overall, this
movie is [z]"). ``problems`` lists every error with its character span, for inline marks while typing;
``Template.parse`` refuses a text with any problem, with the first one's message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.names import MODES

SLOTS = ("x", "x2", "z")
SLOT_PATTERN = re.compile(r"\[([^\[\]\s]*)\]")  # [name]; "[MASK]" and the like are slots too, and unknown


@dataclass(frozen=True)
class TemplateProblem:
    """One error in a template's text: characters ``start:end`` (the whole text when it is a missing slot)."""

    start: int
    end: int
    message: str


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise WorkbenchError(f"the template mode must be cloze or prefix, not {mode!r}")


def problems(text: str, mode: str = "cloze") -> list[TemplateProblem]:
    """Every error in ``text`` as a template of ``mode`` ("cloze" or "prefix"), in order; [] when it is fine."""
    _check_mode(mode)
    found: list[TemplateProblem] = []
    seen: dict[str, int] = {}
    for match in SLOT_PATTERN.finditer(text):
        name = match.group(1)
        if name not in SLOTS:
            found.append(TemplateProblem(match.start(), match.end(),
                                         f"unknown slot [{name}]: a template has [x], [x2] and [z]"))
            continue
        if name in seen:
            found.append(TemplateProblem(match.start(), match.end(), f"[{name}] appears twice; write it once"))
        seen.setdefault(name, match.start())
    end = len(text)
    if "z" not in seen:
        found.append(TemplateProblem(0, end, "no answer slot: write [z] where the answer goes"))
    if "x" not in seen:
        found.append(TemplateProblem(0, end, "no input slot: write [x] where the input text goes"))
    if mode == "prefix" and "z" in seen:
        z = seen["z"]
        if text[z + 3:].strip():
            found.append(TemplateProblem(z, end, "a prefix template must end with [z]: the model continues the "
                                                 "text before it (use a cloze template for a masked LM)"))
    found.sort(key=lambda p: (p.start, p.end))
    return found


@dataclass(frozen=True)
class Template:
    """A checked template. ``text`` keeps the slots; ``mode`` is "cloze" or "prefix"."""

    text: str
    mode: str = "cloze"

    @classmethod
    def parse(cls, text: str, mode: str = "cloze") -> "Template":
        """The template of ``text``; a ``WorkbenchError`` with the first problem when it has any."""
        if text is None or not text.strip():
            raise WorkbenchError("the template is empty: write one with [x] and [z], e.g. "
                                 "\"[x] Overall, it was a [z] movie.\"")
        found = problems(text, mode)
        if found:
            raise WorkbenchError(f"template {text!r}: {found[0].message}")
        return cls(text, mode)

    @property
    def is_pair(self) -> bool:
        """Whether the template takes a second text (``[x2]``)."""
        return "[x2]" in self.text

    def split(self, x: str, x2: str | None = None) -> tuple[str, str]:
        """(the text before [z], the text after it), with the inputs filled in."""
        if self.is_pair and x2 is None:
            raise WorkbenchError("this template has [x2]: it needs pairs of texts (sentence1, sentence2)")
        z = self.text.index("[z]")
        return self._fill_inputs(self.text[:z], x, x2), self._fill_inputs(self.text[z + 3:], x, x2)

    def fill(self, x: str, x2: str | None = None, answer: str = "[z]") -> str:
        """The text with the inputs and ``answer`` in place (``answer`` defaults to the slot itself)."""
        before, after = self.split(x, x2)
        return before + answer + after

    @staticmethod
    def _fill_inputs(part: str, x: str, x2: str | None) -> str:
        # one pass, so an input that itself contains "[x2]" is not filled again
        return SLOT_PATTERN.sub(lambda m: {"x": x, "x2": x2 or ""}.get(m.group(1), m.group(0)), part)

"""A family's name after "a" in a message: "a encoder model", "a elmo tokenizer" (the Guide's check said "minilm is a
encoder"). Every message that puts a family (or another word that may start with a vowel) after an article goes
through ``with_article``; the check reads the product code for the literal "a {...family...}" in a string."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lm_workbench.engine.wording import with_article

ROOT = Path(__file__).resolve().parents[2]
PATTERN = re.compile(r"\b[aA]n? \{[^{}]*famil[^{}]*\}")


def _offenders(paths) -> list[str]:
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if PATTERN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_message_puts_a_bare_article_before_a_family():
    paths = [p for layer in ("workbench", "engine", "ui", "plugins") for p in (ROOT / layer).rglob("*.py")]
    assert not _offenders(paths), "use with_article(...) (lm_workbench.engine.wording)"


def test_the_check_sees_one():
    assert PATTERN.search('x = f"{spec} is a {loaded.family.value} model"')
    assert not PATTERN.search('x = f"{spec} is {with_article(loaded.family.value)} model"')


@pytest.mark.parametrize("family, said", [
    ("encoder", "an encoder"), ("encoder-decoder", "an encoder-decoder"), ("decoder", "a decoder"),
    ("elmo", "an elmo"), ("biLM", "a biLM"), ("bert", "a bert"),
])
def test_the_article_fits_the_family(family, said):
    assert with_article(family) == said


def test_the_guide_check_says_an_encoder():
    from types import SimpleNamespace

    from lm_workbench.guide.check import needs_problem

    info = SimpleNamespace(family="encoder", spec="minilm", has_mlm_head=False, has_lm_head=False)
    page = SimpleNamespace(needs=("decoder",), model="course:gpt2")
    said = needs_problem(page, SimpleNamespace(info=info))
    assert "minilm is an encoder" in said and "asks about a decoder model" in said

"""Small helpers for the sentences the workbench writes to people."""

from __future__ import annotations


def with_article(word: str) -> str:
    """``word`` after "a" or "an", by its first letter ("an encoder", "a decoder", "an LSTM" is left to the caller:
    only vowels a, e, i, o, u count)."""
    text = str(word)
    return f"{'an' if text[:1].lower() in 'aeiou' and text else 'a'} {text}"

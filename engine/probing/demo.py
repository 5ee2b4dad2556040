"""The built-in probing data: a Universal-POS token task and an STS pair file.

Both are written by ``scripts/make_probing_demo.py``: 400 generated English
sentences whose tags follow from the grammar's lexicon, and 66 hand-written
pairs (paraphrase, same topic, unrelated) scored 0-5.
"""

from __future__ import annotations

from pathlib import Path

DEMO = "demo"
_DATA = Path(__file__).resolve().parent / "data"
POS_DEMO = _DATA / "pos_demo.conllu"
STS_DEMO = _DATA / "sts_demo.tsv"


def resolve(name: str, demo_file: Path) -> Path:
    """``demo`` (when no file of that name exists) means the built-in file; anything else is a path."""
    if name == DEMO and not Path(name).exists():
        return demo_file
    return Path(name)

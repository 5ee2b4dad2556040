"""The built-in demo set: polysemous English words, each in sentences of two senses.

Written by the LM Workbench team for this purpose (not taken from any
dataset): ten words (bank, bat, spring, match, pitch, crane, bark, seal,
rock, play), two senses each, ten or more sentences per sense. Every
sentence holds its word exactly once, in exactly that form, and no other
word of the set, so a word filter finds one occurrence per sentence and its
sense label is the line's label ("word:sense").
"""

from __future__ import annotations

from importlib import resources

from lm_workbench.engine.embeddings.corpus import Corpus

DEMO_FILE = "polysemy_demo.tsv"


def _rows() -> list[dict[str, str]]:
    from lm_workbench.engine.data.table import read_table

    with resources.as_file(resources.files("lm_workbench.engine.embeddings").joinpath("data", DEMO_FILE)) as path:
        table = read_table(path)
    return [row.cells for row in table.rows]


def demo_words() -> list[str]:
    """The demo set's words, in file order."""
    return list(dict.fromkeys(row["word"] for row in _rows()))


def demo_corpus() -> Corpus:
    """The demo set as a Corpus with labels "word:sense" (line numbers are the file's)."""
    rows = _rows()
    return Corpus(
        lines=[row["sentence"] for row in rows],
        labels=[f"{row['word']}:{row['sense']}" for row in rows],
        source="demo set (polysemous words)",
        line_numbers=list(range(2, len(rows) + 2)),
        label_name="sense",
    )

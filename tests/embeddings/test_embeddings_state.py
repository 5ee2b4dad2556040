"""The Embeddings tab's Qt-free state: stages, selection with undo, neighbours and colours, without a window."""

from __future__ import annotations

import numpy as np
import pytest

from lm_workbench.engine.embeddings.corpus import Corpus
from lm_workbench.engine.embeddings.occurrences import Occurrence
from lm_workbench.engine.embeddings.table import OccurrenceTable
from lm_workbench.embeddings.state import EmbeddingsState

SENTENCES = ["the bank of the river", "a bank loan", "bat and ball", "the bat flew", "river bank erosion"]
WORDS = [("bank", 0, "river"), ("bank", 1, "money"), ("bat", 2, "sport"), ("bat", 3, "animal"),
         ("bank", 4, "river"), ("river", 0, None), ("river", 4, None)]


@pytest.fixture
def table() -> OccurrenceTable:
    rng = np.random.default_rng(0)
    occurrences = []
    for word, line, _label in WORDS:
        start = SENTENCES[line].index(word)
        occurrences.append(Occurrence(line, 0, word, 0, 1, start, start + len(word)))
    labels = {line: label for _w, line, label in WORDS if label}
    vectors = {0: rng.normal(size=(len(WORDS), 8)).astype(np.float32),
               1: rng.normal(size=(len(WORDS), 8)).astype(np.float32),
               "static": rng.normal(size=(len(WORDS), 8)).astype(np.float32)}
    return OccurrenceTable(occurrences=occurrences, vectors=vectors, sentences=SENTENCES,
                           labels=[labels.get(w[1]) for w in WORDS], line_numbers=[1, 2, 3, 4, 5], num_layers=1)


def _recorder(state: EmbeddingsState) -> list[tuple]:
    seen: list[tuple] = []
    for name in state.events.names():
        getattr(state.events, name).connect(lambda *args, name=name: seen.append((name, *args)))
    return seen


def test_stages_emit_in_order_and_a_new_table_invalidates_the_map(table):
    state = EmbeddingsState()
    seen = _recorder(state)
    corpus = Corpus(lines=SENTENCES)
    state.set_corpus(corpus)
    state.set_table("k1", table)
    assert state.map_key is None and state.table is table
    rows = np.arange(len(table))
    state.set_map("m1", "spec", table.vectors[1], rows, np.zeros((len(rows), 2)))
    assert [e[0] for e in seen] == ["corpus_changed", "table_changed", "map_changed"]
    assert seen[-1] == ("map_changed", False) and state.map_key == "m1"
    state.set_table("k2", table)
    assert state.map_key is None  # the next update_map must recompute


def test_selection_undo_survives_a_remap_of_the_same_points_only(table):
    state = EmbeddingsState()
    rows = np.arange(len(table))
    state.set_table("k", table)
    state.set_map("m1", "s", table.vectors[1], rows, np.zeros((len(rows), 2)))
    state.select([3, 1, 1])
    state.select([0])
    state.set_current(4)
    assert state.selection.tolist() == [0] and state.selected_occurrences() == [0]
    assert state.undo_selection() and state.selection.tolist() == [1, 3]
    # A new projection of the same occurrences keeps selection, current point and undo history
    assert state.set_map("m2", "s", table.vectors[0], rows, np.ones((len(rows), 2)))
    assert state.selection.tolist() == [1, 3] and state.current == 4 and state.can_undo()
    assert state.undo_selection() and state.selection.tolist() == []
    assert not state.undo_selection()
    # Other points (a subsample): all of it is reset
    state.select([2])
    assert not state.set_map("m3", "s", table.vectors[0], rows[:3], np.ones((3, 2)))
    assert state.selection.tolist() == [] and state.current is None and not state.can_undo()


def test_neighbours_are_cosine_ranks_without_the_query_sentence(table):
    state = EmbeddingsState()
    rows = np.arange(len(table))
    state.set_table("k", table)
    state.set_map("m", "s", table.vectors[1], rows, np.zeros((len(rows), 2)))
    v = table.vectors[1].astype(np.float64)
    q = 0  # "bank" on line 0; "river" on line 0 must never be its neighbour
    cos = v @ v[q] / (np.linalg.norm(v, axis=1) * np.linalg.norm(v[q]))
    lines = np.array([w[1] for w in WORDS])
    cos[lines == lines[q]] = -np.inf
    expected = [int(i) for i in np.argsort(-cos)[:3]]
    got = state.neighbours(q, "contextual", 3)
    assert [int(n.index) for n in got] == expected
    assert [n.score for n in got] == pytest.approx(cos[expected], abs=1e-5)
    same = state.neighbours(q, "contextual", 5, same_word=True)
    assert {int(n.index) for n in same} == {1, 4}  # the other "bank"s only


def test_colours_senses_and_sentences(table):
    state = EmbeddingsState()
    state.set_corpus(Corpus(lines=SENTENCES))
    state.set_table("k", table)
    rows = np.array([4, 2, 0])
    state.set_map("m", "s", table.vectors[1], rows, np.zeros((3, 2)))
    assert state.colour_labels("label") == ["river", "sport", "river"]
    assert state.colour_labels("word") == ["bank", "bat", "bank"]
    assert state.colour_labels("sentence") == ["line 5", "line 3", "line 1"]
    assert state.words_with_senses() == ["bank", "bat"]
    assert state.sentence_texts(2) == SENTENCES[:2]  # nothing selected: the corpus's first lines
    state.select([2, 0])  # points 0 and 2 = occurrences 4 and 0: their lines, in point order
    assert state.sentence_texts(5) == [SENTENCES[4], SENTENCES[0]]
    assert state.sentence_texts(1) == [SENTENCES[4]]
    assert state.point_of_occurrence(2) == 1 and state.point_of_occurrence(1) is None

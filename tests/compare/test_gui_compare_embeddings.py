"""The Embeddings tab's Neighbours while comparing: A's neighbours of an occurrence over model B's of the same
occurrence, with the real widgets. A tiny BERT (A) and a tiny GPT-2 (B) cut the lines differently; B's list is
checked against a numpy cosine ranking of B's stored vectors and its top scores against a plain transformers
forward pass of B (mean of the word's subword states); an occurrence B's tokenizer reads differently says why.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from transformers import AutoModel, AutoTokenizer

pytestmark = pytest.mark.timeout(180)

LINES = ["The bank raised its rates today.", "She sat on the bank of the river.", "The river bank was muddy.",
         "He paid the bank in cash.", "They didn't like the bank."]
WAIT = 60000


def _plain_vector(folder, line: str, start: int, end: int, layer: int) -> np.ndarray:
    """Mean of the hidden states at ``layer`` of the tokens overlapping characters start:end of ``line``."""
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    batch = tokenizer(line, return_offsets_mapping=True, return_tensors="pt")
    offsets = batch.pop("offset_mapping")[0].tolist()
    with torch.no_grad():
        states = model(**batch, output_hidden_states=True).hidden_states[layer][0]
    rows = [i for i, (a, b) in enumerate(offsets) if b > a and a < end and b > start]
    return states[rows].mean(0).double().numpy()


def test_neighbours_show_b_s_list_for_the_same_occurrence(open_window, tiny_models, qtbot):
    window = open_window(str(tiny_models["bert"]), "embeddings")
    view = window.view("embeddings")
    view.use_text("\n".join(LINES))
    qtbot.waitUntil(lambda: view.state.coords is not None and not view.busy(), timeout=WAIT)
    table_a = view.state.table
    query = next(i for i, o in enumerate(table_a.occurrences) if o.line == 1 and o.key == "bank")
    view.select_occurrence(query)
    assert not view.neighbours.comparing()

    panel = window.compare.panel
    qtbot.keyClicks(panel.field, str(tiny_models["gpt2"]))
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.model_b is not None and view.neighbours.b_table.rowCount() > 0
                    and not view.busy(), timeout=WAIT)
    compared = view.state.model_b
    table_b = compared.table
    b_row = int(compared.rows[query])
    mine, theirs = table_a.occurrences[query], table_b.occurrences[b_row]
    assert (theirs.line, theirs.char_start, theirs.char_end) == (mine.line, mine.char_start, mine.char_end)
    assert LINES[theirs.line][theirs.char_start:theirs.char_end] == "bank"
    layer = table_b.num_layers  # A's spec is its last layer; B has as many
    assert compared.spec.kind == "layer" and compared.spec.layer == layer == table_a.num_layers

    vectors = np.asarray(table_b.vectors[layer], dtype=np.float64)
    cos = vectors @ vectors[b_row] / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(vectors[b_row]))
    lines = np.array([o.line for o in table_b.occurrences])
    cos[lines == theirs.line] = -np.inf  # never from the query's own sentence
    k = view.neighbours.k()
    shown = view.neighbours.b_table
    got = [shown.row_index(r) for r in range(shown.rowCount())]
    assert got[:k] == np.argsort(-cos, kind="stable")[:k].tolist()
    folder = tiny_models["gpt2"]
    ref_q = _plain_vector(folder, LINES[theirs.line], theirs.char_start, theirs.char_end, layer)
    for r in range(2):
        o = table_b.occurrences[got[r]]
        ref_n = _plain_vector(folder, LINES[o.line], o.char_start, o.char_end, layer)
        ref = ref_q @ ref_n / (np.linalg.norm(ref_q) * np.linalg.norm(ref_n))
        assert float(shown.cell_text(r, "score")) == pytest.approx(ref, abs=3e-3)
    assert view.neighbours.b_title.text().startswith("B: ")
    assert view.neighbours.contextual_title.text().startswith("A: ")
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "embeddings-neighbours-ab.png"))

    # BERT reads "didn't" as didn ' t, GPT-2 as didn 't: A's "t" has no B word over its characters, and B's
    # side says so in one line
    unmatched = [i for i in range(len(table_a)) if compared.rows[i] < 0]
    assert [table_a.occurrences[i].word for i in unmatched] == ["'", "t"]
    view.select_occurrence(unmatched[0])
    qtbot.waitUntil(lambda: "does not read" in view.neighbours.b_note.text(), timeout=WAIT)
    assert shown.rowCount() == 0

    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.neighbours.comparing(), timeout=WAIT)
    assert view.state.model_b is None and not view.neighbours.contextual_title.text().startswith("A: ")

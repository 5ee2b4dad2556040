"""Issue 49.5 in the Retrieval tab: the hits name the model, corpus and query they belong to; a changed query
greys them ("from <model>, <input>", Run again); a refused corpus leaves nothing of the previous index
searchable and its refusal goes once a good corpus is read; another model clears the old model's hits."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from lm_workbench.engine.retrieval.bm25 import Bm25Index
from tests.support.retrieval_reference import PASSAGES

WAIT = 30000


def _idle(view):
    return not view.ctx.jobs.busy()


def _search(view, qtbot, query):
    view.query_edit.setText(query)
    qtbot.keyClick(view.query_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _idle(view) and view.state.query == query and bool(view.state.hits), timeout=WAIT)


def test_stale_hits_refused_corpus_and_another_model(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    good = tmp_path / "passages.txt"
    good.write_text("\n".join(PASSAGES) + "\n", encoding="utf-8")
    binary = tmp_path / "program.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    window = open_window(str(tiny_models["bert"]), "retrieval", size=(1024, 768))
    view = window.view("retrieval")
    view.k_spin.setValue(3)
    view.load_corpus(str(good))
    qtbot.waitUntil(lambda: view.state.corpus is not None and _idle(view), timeout=WAIT)
    _search(view, qtbot, "the value of an expression")
    line = view.hits_origin
    assert not line.stale() and "From bert" in line.text() and "the value of an expression" in line.text()
    assert "passages.txt" in line.text() and not line.greyed(view.hits_a)

    # the query changes: the hits stay, greyed and named, with Run again
    view.query_edit.setText("a function definition")
    assert line.stale() and line.text().startswith("Stale (the inputs changed): from bert")
    assert "the value of an expression" in line.text() and line.again_button.isVisible()
    assert line.greyed(view.hits_a) and line.greyed(view.hits_bm25)
    view.resize(1024, 768)
    qtbot.wait(50)
    shot = os.environ.get("LMW_STALE_SHOT")  # a look at it: LMW_STALE_SHOT=/tmp/stale.png
    if shot:
        window.grab().save(shot)
    qtbot.mouseClick(line.again_button, Qt.MouseButton.LeftButton)  # Run again searches the query in the box
    qtbot.waitUntil(lambda: _idle(view) and view.state.query == "a function definition", timeout=WAIT)
    assert not line.stale() and not line.greyed(view.hits_a)
    expected, _ = Bm25Index(PASSAGES).search("a function definition", 3)  # BM25 computed here
    assert [h.index for h in view.hits_bm25.hits] == [int(i) for i in expected]

    # a refused corpus: the combo names it, and nothing of the previous index answers a search
    view.load_corpus(str(binary))
    qtbot.waitUntil(lambda: _idle(view) and view.state.corpus is None, timeout=WAIT)
    assert view.corpus_combo.currentText() == "program.bin"
    assert "UTF-8" in window.message_bar.text() or "byte" in window.message_bar.text()
    assert view.hits_a.hits == [] and view.state.dense is None and line.text() == ""
    view.search("a function definition")
    qtbot.waitUntil(lambda: _idle(view), timeout=WAIT)
    assert view.state.hits == {} and view.hits_a.hits == [] and view.state.corpus is None
    # a good corpus afterwards: the refusal goes
    view.load_corpus(str(good))
    qtbot.waitUntil(lambda: _idle(view) and view.state.corpus is not None, timeout=WAIT)
    assert window.message_bar.text() == "" and view.corpus_combo.currentText() == "passages.txt"
    _search(view, qtbot, "the value of an expression")

    # another model: the old model's hits are cleared, not shown under the new name
    window.load_model(str(tiny_models["gpt2"]))
    qtbot.waitUntil(lambda: window.loaded is not None and "gpt2" in window.loaded.info.spec, timeout=WAIT)
    assert view.hits_a.hits == [] and view.hits_bm25.hits == [] and view.state.hits == {}
    assert line.text() == "" and not line.stale()

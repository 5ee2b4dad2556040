"""The Retrieval tab driven through its widgets: a small corpus indexed, a query searched, and the lists checked
against the engine's own search and bm25s computed here; model B's list beside A's; the demo's metrics table."""

from __future__ import annotations

from PySide6.QtCore import Qt

from lm_workbench.engine.progress import run_to_completion
from lm_workbench.engine.retrieval.bm25 import Bm25Index
from lm_workbench.engine.retrieval.corpus import read_corpus
from lm_workbench.engine.retrieval.encode import PassageEncoder
from lm_workbench.engine.retrieval.index import index_corpus_job
from tests.support.retrieval_reference import PASSAGES

WAIT = 30000
QUERY = "the value of an expression"


def _compare_with(window, qtbot, spec: str) -> None:
    panel = window.compare.panel
    panel.field.clear()
    qtbot.keyClicks(panel.field, spec)
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None, timeout=WAIT)


def _idle(view):
    return not view.ctx.jobs.busy()


def test_index_search_compare_and_evaluate(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    path = tmp_path / "passages.txt"
    path.write_text("\n".join(PASSAGES) + "\n", encoding="utf-8")
    window = open_window(str(tiny_models["bert"]), "retrieval")
    view = window.view("retrieval")
    view.pooling_combo.setCurrentText("mean")
    view.k_spin.setValue(5)
    view.load_corpus(str(path))
    qtbot.waitUntil(lambda: view.state.corpus is not None and _idle(view), timeout=WAIT)
    qtbot.mouseClick(view.index_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.dense is not None and _idle(view), timeout=WAIT)
    assert "Indexed 24 passages" in view.summary.text()
    qtbot.keyClicks(view.query_edit, QUERY)
    qtbot.keyClick(view.query_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(view.state.hits) and _idle(view), timeout=WAIT)

    corpus = read_corpus(path)
    loaded = window.loaded
    dense = run_to_completion(index_corpus_job(loaded, corpus, "mean"))
    idx, scores = dense.query(PassageEncoder(loaded, "mean"), QUERY, 5)
    assert [h.id for h in view.hits_a.hits] == [corpus.ids[i] for i in idx]
    assert [round(h.score, 5) for h in view.hits_a.hits] == [round(float(s), 5) for s in scores]
    shown = " ".join(view.hits_a.browser.toPlainText().split())  # HTML folds runs of spaces
    positions = [shown.index(" ".join(corpus.texts[i].split())[:40]) for i in idx]
    assert positions == sorted(positions)  # listed best first
    b_idx, _ = Bm25Index(corpus.texts).search(QUERY, 5)
    assert [h.id for h in view.hits_bm25.hits] == [corpus.ids[i] for i in b_idx]
    assert "k1=1.5, b=0.75" in view.hits_bm25.title.text()
    assert view.hits_bm25.words == ["value", "expression"]  # bm25s's words of the query, stop words dropped
    assert "background-color" in view.hits_bm25.browser.toHtml()  # BM25's hits hold them: highlighted

    _compare_with(window, qtbot, str(tiny_models["gpt2"]))  # B searches beside A (indexing the corpus first)
    qtbot.waitUntil(lambda: "b" in view.state.hits and _idle(view), timeout=WAIT)
    assert view.ab.comparing() and len(view.hits_b.hits) == 5
    assert view.state.dense_b.model_identity != view.state.dense.model_identity

    # the why-sbert lecture's step: the demo set, [CLS] pooling, a query searched, then the metrics table
    view.apply_preset_step({"corpus": "demo", "pooling": "cls", "k": 3, "query": "How do plants make food?",
                            "evaluate": True}, {})
    qtbot.waitUntil(lambda: view.state.evaluation is not None and _idle(view), timeout=WAIT)
    assert view.state.dense.mode == "cls" and len(view.hits_a.hits) == 3 and view.state.beir is not None
    assert view.preset_state()[0]["query"] == "How do plants make food?"
    assert view.metrics.isVisible() and view.metrics.metrics.rowCount() == 5
    assert view.metrics.metrics.columnCount() == 4  # metric, model A, model B, BM25
    assert view.metrics.per_query.rowCount() == 12
    from lm_workbench.store import RunStore

    with RunStore(window.run_services.path) as store:  # A's and B's evaluations, recorded as runs
        runs = [r for r in store.list_runs() if r["kind"] == "retrieval-eval"]
    assert len(runs) == 2 and {r["params"]["pooling"] for r in runs} == {"cls"}
    a_run = next(r for r in runs if r["params"]["bm25"])
    assert a_run["params"]["model"] == str(tiny_models["bert"])

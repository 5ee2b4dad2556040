"""Retrieval's evaluation has room at 1024 × 768 with F5 (issue 49.6): after the why-sbert step (the demo, a query
searched, then Evaluate) every hit list shows at least three passages, the metrics table all its rows and
columns, the per-query table at least six rows and all four columns uncut; and the tab scrolls to the metrics
table the step's caption names (nDCG@10). Screenshots go to ``LM_WORKBENCH_SHOTS`` when it is set."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(180)
WAIT = 60000
STEP = {"corpus": "demo", "pooling": "mean", "k": 5, "query": "How do green plants produce their food?",
        "evaluate": True}


def _in_tab(window, widget) -> QRect:
    """``widget``'s rectangle in the Retrieval tab's scroll area's viewport, clipped to what that viewport shows."""
    viewport = window.view_host._scrollers["retrieval"].viewport()
    return QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size()).intersected(viewport.rect())


def _rows_shown(table) -> int:
    """Rows of ``table`` whose whole height lies inside its viewport."""
    height = table.viewport().height()
    return sum(1 for r in range(table.rowCount())
               if table.rowViewportPosition(r) >= 0 and table.rowViewportPosition(r) + table.rowHeight(r) <= height)


def _cut_columns(table) -> list[str]:
    """Headers of the columns cut by the viewport's right edge or narrower than their contents."""
    width = table.viewport().width()
    cut = []
    for c in range(table.columnCount()):
        name = table.horizontalHeaderItem(c).text() if table.horizontalHeaderItem(c) else str(c)
        right = table.columnViewportPosition(c) + table.columnWidth(c)
        need = max(table.sizeHintForColumn(c), table.horizontalHeader().sectionSizeHint(c))
        if table.isColumnHidden(c):
            continue
        if right > width or (c > 0 and table.columnWidth(c) < need):  # the query text may elide, numbers not
            cut.append(name)
    return cut


def _hits_shown(hits) -> int:
    """How many of the list's passages fit in its browser's viewport (the document's rows are one table)."""
    doc = hits.browser.document()
    rows = len(hits.hits)
    if not rows:
        return 0
    per_row = doc.size().height() / rows
    return min(rows, int(hits.browser.viewport().height() // per_row))


@pytest.mark.parametrize("size", [(1024, 768), (1280, 720)])
def test_the_evaluation_has_room_with_f5(open_window, qtbot, tiny_models, restore_style, size):
    window = open_window(str(tiny_models["bert"]), "retrieval", size=size, about=False)
    window.presentation.screen_height = lambda: size[1]
    window.presentation.set_on(True)
    view = window.view("retrieval")
    view.apply_preset_step(dict(STEP), {})
    qtbot.waitUntil(lambda: view.state.evaluation is not None and not window.jobs.busy
                    and view.metrics.isVisible(), timeout=WAIT)
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(400)  # the scroll to the metrics runs after the layouts settle
    shots = os.environ.get("LM_WORKBENCH_SHOTS")
    if shots:
        window.grab().save(os.path.join(shots, f"retrieval-f5-{size[0]}x{size[1]}.png"))
    panel = view.metrics
    metrics_rows = panel.metrics.rowCount()
    assert metrics_rows >= 2  # the model and BM25
    assert _rows_shown(panel.metrics) == metrics_rows
    assert _cut_columns(panel.metrics) == []
    assert _rows_shown(panel.per_query) >= min(6, panel.per_query.rowCount())
    assert _cut_columns(panel.per_query) == []
    # the step's caption names nDCG@10: the metrics table is in sight, all of it
    shown = _in_tab(window, panel.metrics)
    assert shown.height() == panel.metrics.height() and shown.width() == panel.metrics.width()
    # scrolling up, each list shows at least three of its five passages
    for hits in (view.hits_a, view.hits_bm25):
        assert _hits_shown(hits) >= 3, (hits.title.text(), hits.browser.viewport().height())


def test_a_step_visited_again_reuses_its_recorded_evaluation(open_window, qtbot, tiny_models):
    """why-sbert recorded another run on every visit to a step (issue 49.11): a step shown again shows the evaluation
    this session recorded for the same model and inputs; another pooling is another evaluation, recorded once."""
    from lm_workbench.store import RunStore

    window = open_window(str(tiny_models["bert"]), "retrieval", about=False)
    view = window.view("retrieval")

    def runs() -> list:
        with RunStore(window.run_services.path) as store:
            return [r for r in store.list_runs() if r["kind"] == "retrieval-eval"]

    def visit(pooling: str) -> None:
        view.apply_preset_step(dict(STEP, pooling=pooling), {})
        qtbot.waitUntil(lambda: view.state.evaluation is not None and not window.jobs.busy
                        and view.state.dense is not None and view.state.dense.pooling == pooling
                        and view.metrics_origin.origin is not None
                        and view.metrics_origin.origin.matches(window.loaded, view._metrics_key()), timeout=WAIT)

    before = len(runs())  # (other tests' runs, when they share the store)
    visit("mean")
    first = view.state.evaluation.model.mean["ndcg@10"]
    visit("cls")
    assert len(runs()) == before + 2
    visit("mean")  # step 1 again
    assert len(runs()) == before + 2  # nothing new recorded ...
    assert view.state.evaluation.model.mean["ndcg@10"] == first  # ... and step 1's numbers are back
    assert "not recorded twice" in view.summary.text()
    view.evaluate_button.click()  # Evaluate pressed by hand: a new run, as asked
    qtbot.waitUntil(lambda: len(runs()) == before + 3 and not window.jobs.busy, timeout=WAIT)

"""Fine-tune's layout at 1024 × 768 (issue 49, cosmetic): the DPO curves' legend stands clear of the lines it labels
(it covered them), and the results stay stacked under the form when Form is folded and shown again (they came
back side by side, over the form)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from lm_workbench.store.metrics_reader import MetricRow
from lm_workbench.ui.widgets.fold import FoldSplitter

pytestmark = pytest.mark.timeout(90)


def _settle(qtbot, times: int = 4) -> None:
    for _ in range(times):
        QApplication.processEvents()
        qtbot.wait(20)


def _shot(window, name: str) -> None:
    shots = os.environ.get("LMW_SHOTS")
    if shots:
        window.grab().save(os.path.join(shots, name))


@pytest.fixture
def tab(open_window, tiny_models, fresh_home):
    window = open_window(str(tiny_models["gpt2"]), "finetune", size=(1024, 768), about=False)
    return window, window.view("finetune")


def test_the_dpo_legend_stands_above_the_loss_lines(tab, qtbot):
    window, view = tab
    view.form_button.setChecked(False)  # as a lecture step shows it: the curves in view
    view.tabs.setCurrentIndex(0)
    curves = view.curves
    curves.clear("preference")
    # DPO's loss starts at log 2 and stays near it on a short run: lines along the top, where the legend sits
    runs = {1: [0.6931, 0.690, 0.689, 0.688, 0.686, 0.690], 2: [0.6931, 0.692, 0.691, 0.6925, 0.690, 0.6928]}
    for run_id, label in ((1, "full"), (2, "lora")):
        curves.add_run(run_id, label)
    for run_id, losses in runs.items():
        rows = [MetricRow(10 * run_id + i, 2 * (i + 1), "loss", v, 100.0 + i) for i, v in enumerate(losses)]
        rows += [MetricRow(100 * run_id + i, 2 * (i + 1), "reward_margin", 0.01 * i, 100.0 + i) for i in range(6)]
        curves.add_rows(run_id, rows)
    _settle(qtbot)
    plot = curves.plots["loss"]
    legend = curves.legend.mapRectToScene(curves.legend.boundingRect())
    assert legend.height() > 0 and len(curves.legend.items) == 2
    shown = curves.graphics.mapFromScene(legend).boundingRect()
    assert curves.graphics.viewport().rect().contains(shown)  # on screen: not past the tab's right edge
    view_box = plot.getViewBox()
    tallest = max(max(v) for v in runs.values())
    top = view_box.mapViewToScene(QPointF(0.0, tallest)).y()
    assert legend.bottom() <= top  # every point of every line lies below the legend
    low = view_box.mapViewToScene(QPointF(0.0, min(min(v) for v in runs.values()))).y()
    assert low <= view_box.mapRectToScene(view_box.boundingRect()).bottom()  # and the lowest still shows
    _shot(window, "finetune-dpo-legend-1024.png")


def test_the_results_stay_stacked_when_form_is_toggled(tab, qtbot):
    window, view = tab
    splitter = view.findChild(FoldSplitter)
    _settle(qtbot)
    assert splitter.orientation() == Qt.Orientation.Vertical  # at 1024 the form stands above the results
    before = [splitter.widget(i).geometry() for i in range(2)]
    for _ in range(2):
        view.form_button.setChecked(False)
        _settle(qtbot)
        view.form_button.setChecked(True)
        _settle(qtbot)
        assert splitter.orientation() == Qt.Orientation.Vertical
        form, results = (splitter.widget(i).geometry() for i in range(2))
        assert not form.intersects(results) and results.top() >= form.bottom()
        assert [form, results] == before
    _shot(window, "finetune-form-toggled-1024.png")

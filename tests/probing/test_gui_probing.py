"""The Probing tab on a tiny model: Run draws layers as they come, stores runs, cancels, exports."""

from __future__ import annotations

import csv
import os

import numpy as np
from PySide6.QtCore import Qt

from lm_workbench.engine.probing.demo import POS_DEMO
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views


def _registry() -> ViewRegistry:
    builtin = builtin_views()
    return ViewRegistry([builtin.get("tokens"), builtin.get("probing")])


def test_run_probe_and_sts_live_then_cancel_and_export(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    window = open_window(str(tiny_models["bert"]), "probing", registry=_registry())
    view = window.view("probing")
    assert window.about_panel.title() == "Probing" and "control task" in window.about_panel.plain_text()
    assert not window.text_input.isVisible()  # the tab reads a corpus of its own, not the text box

    task = tmp_path / "small.conllu"
    task.write_text("\n\n".join(POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:50]) + "\n", encoding="utf-8")
    view.choose_task_file(str(task))
    assert view.task_combo.currentText() == "small.conllu" and view.kind_combo.currentText() == "token"
    view.pooling_combo.setCurrentText("cls")
    assert view.state.pooling == "cls"

    layers_seen = []
    view.state.events.probe_changed.connect(lambda: layers_seen.append(len(view.state.probe_layers)))
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert not view.run_button.isEnabled() and view.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: view.state.sts_run_id is not None, timeout=60000)
    assert layers_seen == [0, 1, 2, 3, 3]  # cleared, a layer at a time as each probe finished, then the result
    assert view.state.probe_run_id is not None and sorted(view.state.probe_layers) == [0, 1, 2]
    x, y = view.plots.accuracy_curve.getData()
    assert list(x) == [0, 1, 2] and np.allclose(y, [view.state.probe_layers[k][0] for k in range(3)])
    _, sel = view.plots.selectivity_curve.getData()
    assert np.allclose(sel, [view.state.probe_layers[k][2] for k in range(3)])
    sts_x, rho = view.plots.sts_curve.getData()  # layers where rho is defined (see below)
    assert np.allclose(rho, [view.state.sts_layers[k] for k in sts_x])
    assert "run" in view.summary.text() and view.run_button.isEnabled()
    if os.environ.get("PROBING_SCREENSHOT"):
        window.grab().save(os.environ["PROBING_SCREENSHOT"])

    store = window.run_services.store
    probe_run = store.get_run(view.state.probe_run_id)
    assert probe_run["kind"] == "probe" and probe_run["params"]["task"] == str(task)
    # with [CLS] pooling, layer 0's vectors are one and the same for every sentence: rho is undefined, not stored
    defined = [k for k in range(3) if view.state.sts_layers[k] is not None]
    assert [r["step"] for r in store.metrics(view.state.sts_run_id, "spearman")] == defined == [1, 2]
    assert "Spearman at layer 0: not defined (every pair has the same cosine" in view.summary.text()
    assert store.get_run(view.state.sts_run_id)["params"]["pooling"] == "cls"

    png, svg, table = view.export_picture(tmp_path / "p.png"), view.export_picture(tmp_path / "p.svg"), \
        view.export_table(tmp_path / "p.csv")
    assert png.read_bytes()[:4] == b"\x89PNG" and b"<svg" in svg.read_bytes()[:400]
    rows = list(csv.reader(table.open(encoding="utf-8")))
    assert rows[0] == ["layer", "accuracy", "control_accuracy", "selectivity", "majority", "sts_spearman"]
    assert len(rows) == 4 and float(rows[1][1]) == view.state.probe_layers[0][0]

    # issue 49.5: another pooling greys the curves, named by their own task; back to [CLS], current again
    origin = view.origin_line
    assert origin.text() == "From bert, task small (token), STS data the demo pairs." and not origin.stale()
    view.pooling_combo.setCurrentText("mean")
    assert origin.stale() and origin.greyed(view.plots) and "small (token)" in origin.text()
    assert origin.again_button.isVisible()
    view.pooling_combo.setCurrentText("cls")
    assert not origin.stale() and not origin.greyed(view.plots)

    # Cancel: the demo set, stopped right away; the tab is ready again and says so
    view.task_combo.setCurrentIndex(0)
    view.task_combo.activated.emit(0)
    assert view.state.task == "demo"
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=30000)
    assert view.summary.text().startswith("Cancelled")
    assert view.state.probe_run_id is None  # nothing was stored for the cancelled sweep


def test_scalar_mix_bars_per_task_with_the_expected_layer(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    """Run with only "Scalar mix" ticked: weights arrive as partial results, the bars equal the learned weights,
    the dashed line sits at sum_j j * s_j, and a second task adds its own bars beside the first."""
    import pyqtgraph as pg

    window = open_window(str(tiny_models["bert"]), "probing", registry=_registry())
    view = window.view("probing")
    task = tmp_path / "small.conllu"
    task.write_text("\n\n".join(POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:40]) + "\n", encoding="utf-8")
    view.choose_task_file(str(task))
    view.probe_check.setChecked(False)
    view.sts_check.setChecked(False)
    view.mix_check.setChecked(True)
    view.mix_steps.setValue(30)
    seen = []
    view.state.events.mix_changed.connect(lambda: seen.append(dict(view.state.mixes)))
    assert not view.plots.mix_plot.isVisible()
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "small (token)" in view.state.mix_run_ids, timeout=60000)
    weights = view.state.mixes["small (token)"]
    assert len(seen) >= 2  # partial weights during training, then the final ones
    run = window.run_services.store.get_run(view.state.mix_run_ids["small (token)"])
    assert run["kind"] == "scalar-mix" and run["status"] == "finished"
    assert [m["value"] for m in window.run_services.store.metrics(run["id"], "weight")] == weights
    assert view.plots.mix_plot.isVisible() and "expected layer" in view.summary.text()
    bars = [i for i in view.plots.mix_plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    lines = [i for i in view.plots.mix_plot.getPlotItem().items if isinstance(i, pg.InfiniteLine)]
    assert len(bars) == 1 and np.allclose(bars[0].opts["height"], weights)
    assert lines[0].value() == sum(j * w for j, w in enumerate(weights))

    view.choose_task_file(str(POS_DEMO), "token")  # a second task: bars side by side, one legend row each
    view.state.set_mix("other", [1 / len(weights)] * len(weights))
    bars = [i for i in view.plots.mix_plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 2 and not np.allclose(bars[0].opts["x"], bars[1].opts["x"])

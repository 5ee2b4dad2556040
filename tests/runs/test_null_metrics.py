"""A metric that could not be computed is logged as NaN and stored as NULL (issue 42's undefined numbers): every
reader of the store takes it as "no number" (the Runs tab crashed on opening: float(None) in its summaries)."""

from __future__ import annotations

import math

import pytest


@pytest.mark.parametrize("values, last", [
    ([1.5, math.nan], None),  # the reported case: the last value is undefined (a sentence task's perplexity)
    ([math.nan, 2.0], 2.0),
    ([math.nan, math.nan], None),
])
def test_undefined_values_are_no_number_to_every_reader(tmp_path, values, last):
    from lm_workbench.store.metrics_reader import MetricsReader
    from lm_workbench.store.run_store import RunStore

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    run_id = store.create_run("finetune", name="t", params={})
    for step, value in enumerate(values):
        store.log_metrics(run_id, step, {"perplexity": value, "loss": 1.0})
    store.close()
    reader = MetricsReader(path)
    try:
        summary = reader.summaries()[run_id]
        rows = [r for r in reader.rows_after(run_id, 0, 100) if r.name == "perplexity"]
    finally:
        reader.close()
    assert summary.get("perplexity") == last and summary["loss"] == 1.0
    assert [None if math.isnan(r.value) else r.value for r in rows] == [
        None if math.isnan(v) else v for v in values]


def test_the_runs_tab_opens_on_a_run_with_an_undefined_metric_and_draws_its_defined_points(open_window, qtbot,
                                                                                             fresh_home):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store.run_store import RunStore

    store = RunStore(runs_db_path())
    run_id = store.create_run("finetune", name="sentence task", params={}, status="finished")
    for step in range(3):
        store.log_metrics(run_id, step, {"loss": 1.0 / (step + 1), "perplexity": math.nan})
    store.close()
    window = open_window(view="runs", size=(1280, 860), about=False)
    browser = window.view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 1, timeout=10000)
    browser.select_runs([run_id])
    overlay = browser.overlay
    _x, y = overlay.curve_data(run_id)  # the default metric: the loss
    assert list(y) == pytest.approx([1.0, 0.5, 1 / 3])
    overlay.set_metric("perplexity")
    assert overlay.curve_data(run_id) is None  # no number anywhere: no curve (and no crash)

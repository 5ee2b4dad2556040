"""The Runs tab with real widgets over a real run store: sorting, overlays, diff, CLI, run again, delete, reopen."""

from __future__ import annotations

import csv
import os
import shlex

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from lm_workbench.ui.window.main_window import MainWindow
from lm_workbench.ui.runs.run_table import COLUMN_INDEX, COLUMNS
from lm_workbench.paths import runs_db_path
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.store.run_store import RunStore

pytestmark = pytest.mark.timeout(120)

SHOTS = "/work/coord/shots"


def spec_dict(objective: str = "clm", lr: float = 1e-3, steps: int = 40, **changes) -> dict:
    spec = PretrainSpec(family="gpt2", objective=objective, corpus=["/data/corpus.txt"], out_dir="/data/out/run",
                        hidden=64, max_positions=32, vocab_size=300,
                        training={"steps": steps, "lr": lr, "log_every": 2}, **changes)
    return spec.to_dict()


def losses_for(scale: float, n: int) -> list[float]:
    return [scale * float(np.exp(-0.05 * i)) + 2.0 for i in range(n)]


def add_run(store: RunStore, *, name: str, params: dict, losses: list[float], status: str, error: str | None = None,
            kind: str = "pretrain", t0: float = 1_700_000_000.0, dt: float = 1.5, method: str = "clm") -> int:
    run_id = store.create_run(kind, name=name, model="gpt2-tiny", method=method, params=params,
                              cli_command="lm-workbench probe --stored" if kind != "pretrain" else None)
    store.start_run(run_id, pid=None)
    for i, loss in enumerate(losses):
        step = 2 * (i + 1)
        values = {"loss": loss, "lr": 1e-3 * (1 - i / len(losses))}
        if i % 5 == 4:
            values["validation_loss"] = loss + 0.1
        store.log_metrics(run_id, step, values, time=t0 + dt * i)
    if status != "running":
        store.finish_run(run_id, status, error)
    return run_id


@pytest.fixture
def populated(fresh_home):
    """Four runs: finished x2 (different lr / objective), failed with an error, and a probe whose params this
    version cannot read (another version's)."""
    store = RunStore(runs_db_path())
    ids = {
        "a": add_run(store, name="small lr", params=spec_dict(lr=1e-3), losses=losses_for(3.0, 20), status="finished"),
        "b": add_run(store, name="large lr", params=spec_dict(lr=5e-3, steps=30), losses=losses_for(1.5, 15),
                     status="finished", dt=0.7),
        "c": add_run(store, name="broken", params=spec_dict(objective="mlm"), losses=losses_for(4.0, 3),
                     status="failed", error="WorkbenchError: corpus.txt line 3 is not UTF-8", method="mlm"),
        "d": add_run(store, name="probe", params={"layer": 3}, losses=losses_for(0.5, 8), status="finished",
                     kind="probe"),
    }
    store.close()
    return ids


@pytest.fixture
def make_window(open_window, qtbot):
    """A window on the Runs tab, once the table shows the store's runs."""

    def make() -> MainWindow:
        window = open_window(view="runs", size=(1280, 860), about=False)
        qtbot.waitUntil(lambda: window.view("runs").model.rowCount() > 0, timeout=5000)
        return window

    return make


def column_values(browser, key: str) -> list[str]:
    header, rows = browser.table_rows()
    col = header.index(next(c.title for c in COLUMNS if c.key == key))
    return [r[col] for r in rows]


def test_table_lists_runs_with_status_error_and_sorts(make_window, populated):
    browser = make_window().view("runs")
    assert browser.model.rowCount() == 4
    header, rows = browser.table_rows()
    by_id = {int(r[0]): dict(zip(header, r)) for r in rows}
    a, c = by_id[populated["a"]], by_id[populated["c"]]
    assert a["Status"] == "finished" and a["Steps"] == "40" and a["Loss"] == f"{losses_for(3.0, 20)[-1]:.4f}"
    assert a["Val. loss"] == f"{losses_for(3.0, 20)[19] + 0.1:.4f}"
    assert c["Status"] == "failed" and "not UTF-8" in c["Error"]
    # Sort by final loss, ascending: the order of the independently known final losses.
    finals = {populated["a"]: losses_for(3.0, 20)[-1], populated["b"]: losses_for(1.5, 15)[-1],
              populated["c"]: losses_for(4.0, 3)[-1], populated["d"]: losses_for(0.5, 8)[-1]}
    browser.table.sortByColumn(COLUMN_INDEX["loss"], Qt.SortOrder.AscendingOrder)
    shown = [int(r[0]) for r in browser.table_rows()[1]]
    assert shown == sorted(finals, key=finals.get)
    browser.table.sortByColumn(COLUMN_INDEX["steps"], Qt.SortOrder.DescendingOrder)
    steps = [int(s) for s in column_values(browser, "steps")]
    assert steps == sorted(steps, reverse=True) and steps[0] == 40
    # A failed run's error shows under the table when it is selected.
    browser.select_runs([populated["c"]])
    assert "not UTF-8" in browser.detail.text()


def test_overlay_smoothing_time_axis_log_and_export(make_window, populated, tmp_path, qtbot):
    window = make_window()
    browser = window.view("runs")
    overlay = browser.overlay
    browser.select_runs([populated["a"], populated["b"], populated["d"]])
    assert overlay.curve_count() == 3
    x, y = overlay.curve_data(populated["a"])
    np.testing.assert_allclose(x, 2 * np.arange(1, 21))
    np.testing.assert_allclose(y, losses_for(3.0, 20))
    # Smoothing: TensorBoard's bias-corrected EMA, computed here independently.
    overlay.set_smoothing(0.6)
    raw, expected, acc = losses_for(1.5, 15), [], 0.0
    for t, v in enumerate(raw, start=1):
        acc = 0.6 * acc + 0.4 * v
        expected.append(acc / (1 - 0.6 ** t))
    np.testing.assert_allclose(overlay.curve_data(populated["b"])[1], expected, rtol=1e-12)
    assert overlay.curve_count() == 3
    # Time axis: seconds since each run's first value.
    overlay.x_combo.setCurrentIndex(overlay.x_combo.findData("time"))
    np.testing.assert_allclose(overlay.curve_data(populated["b"])[0], 0.7 * np.arange(15), atol=1e-6)
    overlay.log_check.setChecked(True)
    assert overlay.plot.ctrl.logYCheck.isChecked()
    # Another metric: only runs that logged it get a curve.
    overlay.set_metric("validation_loss")
    assert overlay.curve_count() == 3
    overlay.log_check.setChecked(False)
    overlay.set_metric("loss")
    overlay.set_smoothing(0.3)
    browser.select_runs([populated["a"]])
    assert overlay.curve_count() == 1
    browser.select_runs([populated["a"], populated["b"], populated["c"], populated["d"]])
    assert overlay.curve_count() == 4
    png = browser.export_plot(tmp_path / "curves.png")
    svg = browser.export_plot(tmp_path / "curves.svg")
    assert png.stat().st_size > 2000 and b"<svg" in svg.read_bytes()[:400]
    out = browser.export_table(tmp_path / "runs.csv")
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:4] == ["#", "Name", "Kind", "Status"] and len(rows) == 5
    assert {r[1] for r in rows[1:]} == {"small lr", "large lr", "broken", "probe"}
    os.makedirs(SHOTS, exist_ok=True)
    browser.select_runs([populated["a"], populated["b"], populated["c"]])
    overlay.set_smoothing(0.0)
    overlay.x_combo.setCurrentIndex(overlay.x_combo.findData("step"))
    qtbot.wait(200)
    window.grab().save(f"{SHOTS}/runs_browser.png")


def test_config_diff_highlights_differing_keys(make_window, populated):
    browser = make_window().view("runs")
    browser.select_runs([populated["a"], populated["c"]])
    a, c = spec_dict(lr=1e-3), spec_dict(objective="mlm")

    def leaves(d, prefix=""):  # independent flattening
        out = {}
        for k, v in d.items():
            if isinstance(v, dict) and v:
                out.update(leaves(v, f"{prefix}{k}."))
            else:
                out[f"{prefix}{k}"] = v
        return out

    la, lc = leaves(a), leaves(c)
    expected = {k for k in set(la) | set(lc) if la.get(k, object()) != lc.get(k, object())}
    assert expected == {"objective"}
    assert browser.diff.highlighted_keys() == expected
    assert browser.diff.table.rowCount() == len(set(la) | set(lc))
    browser.select_runs([populated["a"], populated["b"]])
    assert browser.diff.highlighted_keys() == {"training.lr", "training.steps"}
    browser.diff.only_diff.setChecked(True)
    visible = [r for r in range(browser.diff.table.rowCount()) if not browser.diff.table.isRowHidden(r)]
    assert len(visible) == 2


def test_copy_as_cli_command(make_window, populated):
    browser = make_window().view("runs")
    browser.select_runs([populated["b"]])
    text = browser.copy_cli()
    assert QGuiApplication.clipboard().text() == text
    args = shlex.split(text)
    assert args[:2] == ["lm-workbench", "pretrain"]
    flags = {args[i]: args[i + 1] for i in range(2, len(args) - 1) if args[i].startswith("--")}
    assert flags["--family"] == "gpt2" and flags["--objective"] == "clm" and flags["--steps"] == "30"
    assert flags["--hidden"] == "64" and flags["--vocab-size"] == "300" and flags["--corpus"] == "/data/corpus.txt"
    assert float(flags["--lr"]) == 5e-3 and flags["--out"] == "/data/out/run"
    # Settings this version cannot turn into a command (a probe stored by another version): the stored line.
    browser.select_runs([populated["d"]])
    assert browser.copy_cli() == "lm-workbench probe --stored"


def test_delete_with_undo_then_for_good(make_window, populated):
    browser = make_window().view("runs")
    browser.select_runs([populated["c"]])
    assert browser.delete_selected() == [populated["c"]]
    assert browser.undo_bar.isVisible() and "#%d" % populated["c"] in browser.undo_label.text()
    assert populated["c"] not in [int(r[0]) for r in browser.table_rows()[1]]
    store = RunStore(runs_db_path())
    try:
        assert store.get_run(populated["c"])["status"] == "failed"  # not yet deleted: Undo is possible
        browser.undo_button.click()
        assert populated["c"] in [int(r[0]) for r in browser.table_rows()[1]]
        assert browser.selected_run_ids() == [populated["c"]]
        browser.delete_selected()
        browser.commit_deletes()  # what the Undo timer does after UNDO_S seconds
        with pytest.raises(KeyError):
            store.get_run(populated["c"])
        assert store.metrics(populated["c"]) == []
        assert browser.model.rowCount() == 3 and not browser.undo_bar.isVisible()
    finally:
        store.close()


def test_run_again_queues_the_same_settings_in_a_new_folder(make_window, populated, qtbot):
    window = make_window()
    browser = window.view("runs")
    browser.select_runs([populated["c"]])  # its corpus does not exist: the repeat fails fast, in its own process
    new_id = browser.run_again()
    assert new_id is not None and browser.selected_run_ids() == [new_id]
    store = RunStore(runs_db_path())
    try:
        new, old = store.get_run(new_id), store.get_run(populated["c"])
        assert new["kind"] == "pretrain" and new["name"] == "broken"
        changed = {k for k in old["params"] if old["params"][k] != new["params"][k]}
        assert changed == {"out_dir"} and new["params"]["out_dir"].startswith("/data/out/run-again-")
        assert "--out /data/out/run-again-" in new["cli_command"]
        qtbot.waitUntil(lambda: store.status(new_id) == "failed", timeout=60000)
        assert "corpus.txt" in store.get_run(new_id)["error"]
    finally:
        store.close()
    qtbot.waitUntil(lambda: "corpus.txt" in (browser.run(new_id).get("error") or ""), timeout=5000)


def test_reopening_shows_finished_and_interrupted_runs(make_window, populated, qtbot):
    from lm_workbench.startup import recover_interrupted_runs

    store = RunStore(runs_db_path())
    stale = store.create_run("pretrain", name="lost", params=spec_dict())
    store.start_run(stale, pid=2**22 + 12345)  # above pid_max: no such process
    store.close()
    first = make_window()
    assert {int(r[0]): r[3] for r in first.view("runs").table_rows()[1]}[stale] == "running"
    first.close()
    assert recover_interrupted_runs(stale_after_s=0.0) == [stale]  # what the app does at start (after 30 s)
    browser = make_window().view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 5, timeout=5000)
    statuses = {int(r[0]): r[3] for r in browser.table_rows()[1]}
    assert statuses[stale] == "interrupted" and statuses[populated["a"]] == "finished"
    assert statuses[populated["c"]] == "failed"
    browser.select_runs([stale])
    assert "vanished" in browser.detail.text()


def test_an_empty_store_says_how_to_make_a_run(open_window, qtbot, fresh_home):
    from lm_workbench.ui.runs.runs_browser import NO_RUNS_HINT

    window = open_window(view="runs")
    qtbot.waitUntil(lambda: window.view("runs").detail.text() == NO_RUNS_HINT, timeout=5000)
    header = window.view("runs").table.horizontalHeader()
    method = next(i for i, c in enumerate(COLUMNS) if c.key == "method")
    assert header.sectionSize(method) >= header.sectionSizeHint(method)  # the header is not cut


def test_resume_continues_a_stopped_run_in_its_own_folder(make_window, populated, qtbot, tmp_path):
    from lm_workbench.finetune.spec import FineTuneSpec

    out = tmp_path / "ft"
    (out / "checkpoints" / "step-00000004").mkdir(parents=True)
    (out / "checkpoints" / "step-00000004" / "state.json").write_text("{}")
    spec = FineTuneSpec(model="minilm", task="seq-cls", train="/data/missing.tsv", method="lora", out_dir=str(out))
    store = RunStore(runs_db_path())
    stopped = add_run(store, name="lora", params=spec.to_dict(), losses=losses_for(1.0, 2), status="cancelled",
                      kind="finetune", method="lora")
    store.close()
    browser = make_window().view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 5, timeout=5000)
    for finished_or_without_checkpoints in (populated["a"], populated["c"]):
        browser.select_runs([finished_or_without_checkpoints])
        assert not browser.resume_button.isEnabled()
    browser.select_runs([stopped])
    assert browser.resume_button.isEnabled()
    qtbot.mouseClick(browser.resume_button, Qt.MouseButton.LeftButton)
    new_id = browser.selected_run_ids()[0]
    assert new_id != stopped
    store = RunStore(runs_db_path())
    try:
        new = store.get_run(new_id)
        assert new["kind"] == "finetune" and new["params"] == {**spec.to_dict(), "resume": str(out)}
        assert new["cli_command"] == f"lm-workbench finetune --resume {out}"
        qtbot.waitUntil(lambda: store.status(new_id) == "failed", timeout=60000)  # its training file is gone
        assert "missing.tsv" in store.get_run(new_id)["error"]
    finally:
        store.close()
    assert "continues from its last checkpoint" in browser.message_bar.text()

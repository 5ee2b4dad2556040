"""The runs table's columns fit its width: the widest give way first (``lm_workbench.ui.runs.column_fit``), and the Runs
tab with a long model path does not scroll sideways at 1024 × 768 (it did, at every F5 size)."""

from __future__ import annotations

import pytest

from lm_workbench.ui.runs.column_fit import fit_widths
from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore


@pytest.mark.parametrize("widths, available, expected", [
    ([40, 100, 300], 500, [40, 100, 300]),  # fits: unchanged
    ([40, 100, 300], 300, [40, 100, 160]),  # only the widest gives way: 40 + 100 + 160 = 300
    ([40, 200, 300], 300, [40, 130, 130]),  # then the next: both capped at 130
    ([100, 100, 100], 120, [48, 48, 48]),  # never below the floor, even when that still does not fit
])
def test_the_widest_columns_are_capped_at_one_width(widths, available, expected):
    assert fit_widths(widths, available) == expected
    fitted = fit_widths(widths, available)
    if sum(widths) > available and min(fitted) > 48:
        # the cap is the largest that fits: one pixel more would not
        cap = max(fitted)
        assert sum(fitted) <= available < sum(min(w, cap + 1) for w in widths)


@pytest.mark.parametrize("widths, available, floors, expected", [
    ([40, 100, 300], 300, [48, 48, 48], [40, 100, 160]),  # floors below the cap: as one floor
    ([40, 200, 300], 300, [48, 150, 48], [40, 150, 110]),  # the title needs 150: the other column gives more
    ([100, 100, 100], 120, [48, 90, 48], [48, 90, 48]),  # every one at its floor: the table scrolls
    ([30, 100, 300], 200, [60, 48, 48], [30, 85, 85]),  # a column narrower than its floor is never widened
])
def test_no_column_is_capped_below_its_own_floor(widths, available, floors, expected):
    fitted = fit_widths(widths, available, floors)
    assert fitted == expected
    assert all(f >= min(w, fl) for f, w, fl in zip(fitted, widths, floors))


def test_one_floor_per_column_or_an_error():
    with pytest.raises(ValueError, match="2 floors for 3 columns"):
        fit_widths([10, 20, 30], 20, [48, 48])


@pytest.mark.timeout(60)
def test_the_runs_tab_does_not_scroll_sideways_with_a_long_model_path(fresh_home, open_window, qtbot):
    store = RunStore(runs_db_path())
    long_path = "/home/teacher/courses/nlp-2026/week-07/checkpoints/" + "a-very-long-model-folder-name-" * 4
    run_id = store.create_run("pretrain", name="a run whose name is long enough to matter " * 2, model=long_path,
                              method="clm", params={})
    store.finish_run(run_id, "finished")
    store.close()
    window = open_window(view="runs", size=(1024, 768), about=False)
    browser = window.view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 1, timeout=5000)
    qtbot.waitUntil(lambda: not browser.table.horizontalScrollBar().isVisible(), timeout=3000)
    header = browser.table.horizontalHeader()
    assert sum(header.sectionSize(i) for i in range(header.count())) <= browser.table.viewport().width() + 1
    window.resize(1280, 800)  # wider: the capped columns grow back toward their contents
    qtbot.waitUntil(lambda: not browser.table.horizontalScrollBar().isVisible(), timeout=3000)

"""Study files: grids and random sweeps expand into the cells they declare; bad input is refused in one line that
names the file's line and the key (unknown run kind, setting, column, variable; a published block that does not
match the table); a study over the cell limit needs --yes."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.studies.file import load_study
from lm_workbench.studies.names import SWEEP_LIMIT
from lm_workbench.studies.sweep import range_values


def write(tmp_path, data, name="s.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def base(**extra):
    return {"format": "lm-workbench-study/1", "name": "t", "columns": [{"name": "accuracy", "metric": "accuracy"}],
            **extra}


def test_grid_sweep_is_the_cartesian_product_in_file_order(tmp_path):
    sweep = {"kind": "tfidf-lr", "settings": {"train": "demo"}, "row": "C={classifier.C} s={seed}",
             "grid": {"classifier.C": [0.1, 1.0, 10.0], "seed": {"range": [0, 4, 2]}}}
    study = load_study(write(tmp_path, base(sweep=sweep)), out_dir=tmp_path / "out")
    expected = list(itertools.product([0.1, 1.0, 10.0], [0, 2, 4]))
    assert [(c.settings["classifier"]["C"], c.settings["seed"]) for c in study.cells] == expected
    assert study.cells[0].row == "C=0.1 s=0" and len({c.id for c in study.cells}) == 9
    assert all(c.settings["train"] == "demo" for c in study.cells)


@pytest.mark.parametrize("spec,expected", [([0, 10, 5], [0, 5, 10]), ([1, 2, 0.25], [1, 1.25, 1.5, 1.75, 2]),
                                           ([0.1, 0.35, 0.1], [0.1, 0.2, 0.3])])
def test_ranges_include_the_stop_when_a_step_lands_on_it(spec, expected):
    assert range_values(spec, "x") == pytest.approx(expected)


def test_random_sweep_draws_n_points_replayably_within_bounds(tmp_path):
    space = {"classifier.C": {"low": 0.01, "high": 100, "log": True}, "vectorizer.min_df": [1, 2, 3]}
    sweep = {"kind": "tfidf-lr", "settings": {"train": "demo"}, "random": {"n": 7, "seed": 3, "space": space}}
    first = load_study(write(tmp_path, base(sweep=sweep)), out_dir=tmp_path / "o")
    again = load_study(write(tmp_path, base(sweep=sweep), "b.json"), out_dir=tmp_path / "o")
    points = [(c.settings["classifier"]["C"], c.settings["vectorizer"]["min_df"]) for c in first.cells]
    assert points == [(c.settings["classifier"]["C"], c.settings["vectorizer"]["min_df"]) for c in again.cells]
    assert len(points) == 7 and all(0.01 <= c <= 100 and m in (1, 2, 3) for c, m in points)
    rng = random.Random(3)  # the same draws, written out: log-uniform C then a choice of min_df
    for c, m in points:
        want_c = math.exp(rng.uniform(math.log(0.01), math.log(100)))
        want_m = rng.choice([1, 2, 3])
        assert c == pytest.approx(want_c, rel=1e-5) and m == want_m


def test_seeds_repeat_a_cell_and_fill_out_dirs(tmp_path):
    cells = [{"id": "a", "row": "A", "kind": "tfidf-lr", "settings": {"train": "demo"}},
             {"id": "ft", "row": "B", "kind": "finetune", "settings": {"model": "minilm", "task": "seq-cls",
                                                                      "train": "x.tsv", "method": "lora"}}]
    study = load_study(write(tmp_path, base(cells=cells, seeds=[0, 1, 2])), out_dir=tmp_path / "out")
    assert [c.id for c in study.cells] == ["a#s0", "a#s1", "a#s2", "ft#s0", "ft#s1", "ft#s2"]
    assert [c.settings["seed"] for c in study.cells] == [0, 1, 2, 0, 1, 2]
    assert "out_dir" not in study.cells[0].settings  # the baseline writes no folder
    assert study.cells[3].settings["out_dir"] == str(tmp_path / "out" / "cells" / "ft-s0")


BAD = [
    ("unknown run kind", {"cells": [{"id": "a", "kind": "tfidf", "settings": {"train": "demo"}}]}, None, "'tfidf'"),
    ("unknown setting", {"cells": [{"id": "a", "kind": "bilstm", "settings": {"train": "demo", "epochz": 2}}]}, None,
     "epochz"),
    ("unknown column key", {"cells": [{"id": "a", "kind": "bilstm", "settings": {"train": "demo"}}],
                            "columns": [{"name": "acc", "metric": "accuracy", "colour": "red"}]}, None, "colour"),
    ("figure names no column", {"cells": [{"id": "a", "kind": "bilstm", "settings": {"train": "demo"}}],
                                "figure": {"type": "bars", "y": "speed"}}, None, "speed"),
    ("published column maps to no column", {
        "cells": [{"id": "a", "row": "A", "kind": "bilstm", "settings": {"train": "demo"}}],
        "published": {"source": "x", "columns": {"SST-2": "acc"}, "values": {"A": {"SST-2": 90}}}}, None, "'acc'"),
    ("published row not in the table", {
        "cells": [{"id": "a", "row": "A", "kind": "bilstm", "settings": {"train": "demo"}}],
        "published": {"source": "x", "columns": {"SST-2": "accuracy"}, "values": {"Z": {"SST-2": 90}}}}, None, "'Z'"),
    ("unknown top-level key", {"cels": []}, None, "'cels'"),
]


@pytest.mark.parametrize("what,extra,line,named", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_refused_in_one_line_naming_line_and_key(tmp_path, what, extra, line, named):
    path = write(tmp_path, base(**extra))
    with pytest.raises(WorkbenchError) as err:
        load_study(path, out_dir=tmp_path / "o")
    message = str(err.value)
    assert "\n" not in message and named in message and str(path) in message
    found = int(message.split(", line ")[1].split(":")[0])
    text_lines = path.read_text().splitlines()
    assert named.strip("'") in text_lines[found - 1], (what, message)
    if line is not None:
        assert found == line


def test_a_sweep_over_the_limit_needs_yes(tmp_path):
    from lm_workbench.studies.runs import StudySpec

    sweep = {"kind": "tfidf-lr", "settings": {"train": "demo"}, "grid": {"seed": {"range": [0, SWEEP_LIMIT, 1]}}}
    path = write(tmp_path, base(sweep=sweep))
    with pytest.raises(WorkbenchError, match=f"{SWEEP_LIMIT + 1} cells.*--yes"):
        StudySpec(study=str(path), out_dir=str(tmp_path / "o")).load()
    study, _ = StudySpec(study=str(path), out_dir=str(tmp_path / "o"), yes=True).load()
    assert len(study.cells) == SWEEP_LIMIT + 1


def test_every_builtin_study_reads_at_both_scales(tmp_path):
    from lm_workbench.studies.file import builtin_names

    names = builtin_names()
    assert len(names) == 7
    for name in names:
        for scale in ("tiny", "lecture"):
            study = load_study(name, scale=scale, out_dir=tmp_path / name)
            assert study.cells and study.columns
            if study.published:
                assert study.published["source"]


@pytest.mark.parametrize("values,expect,holds", [
    ([0.5, 0.6, 0.7], "increasing", True), ([0.5, 0.5, 0.7], "increasing", False),
    ([3.0, 2.0, 1.0], "decreasing", True), ([0.5, None, 0.7], "increasing", None),
])
def test_a_trend_says_whether_it_reappears_at_this_scale(values, expect, holds):
    from lm_workbench.studies.table import check_trend

    rows = [{"row": f"r{i}", "local": {"acc": v}} for i, v in enumerate(values)]
    trend = check_trend({"claim": "c", "column": "acc", "rows": ["r0", "r1", "r2"], "expect": expect}, rows)
    assert trend["holds"] is holds and trend["values"] == values
    assert trend["said"] == {True: "holds here", False: "does not reappear at this scale",
                             None: "not yet known (a value is missing)"}[holds]


@pytest.mark.parametrize("values,margin,holds,said", [
    ([0.4, 0.5], 0.22, None, "too close to tell"),  # the reported case: mlm-vs-left-to-right said "holds here"
    ([0.4, 0.7], 0.22, True, "holds here"),
    ([0.7, 0.4], 0.22, False, "does not reappear"),
    ([0.5, 0.4], 0.22, None, "too close to tell"),  # the other way, but within what 40 examples resolve
    ([0.5, 0.5], 0.0, False, "does not reappear"),  # no margin: equal is no increase
    ([0.4, 0.5], 0.0, True, "holds here"),
])
def test_a_trend_step_within_its_margin_is_too_close_to_tell(values, margin, holds, said):
    from lm_workbench.studies.table import check_trend

    rows = [{"row": f"r{i}", "local": {"acc": v}} for i, v in enumerate(values)]
    trend = check_trend({"claim": "c", "column": "acc", "rows": ["r0", "r1"], "expect": "increasing",
                         "margin": margin}, rows)
    assert trend["holds"] is holds and said in trend["said"]


def test_a_trend_over_an_unknown_row_is_refused(tmp_path):
    cells = [{"id": "a", "row": "A", "kind": "tfidf-lr", "settings": {"train": "demo"}}]
    path = write(tmp_path, base(cells=cells, trends=[{"column": "accuracy", "rows": ["A", "Q"], "expect": "increasing"}]))
    with pytest.raises(WorkbenchError, match="the trend's row 'Q' is not a row"):
        load_study(path, out_dir=tmp_path / "o")


@pytest.mark.parametrize("content, said", [
    (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "not UTF-8 text"),  # the reported case: a binary file
    (b"", "not JSON"),
    ("\ufeff{\"format\": 3}".encode(), "format"),  # a BOM is read past (an editor wrote it); the format is checked
])
def test_a_file_that_is_no_study_is_refused_in_one_line(tmp_path, content, said):
    from lm_workbench.engine.errors import WorkbenchError

    path = tmp_path / "study.json"
    path.write_bytes(content)
    with pytest.raises(WorkbenchError, match=said) as caught:
        load_study(path)
    assert "\n" not in str(caught.value)

"""The Probing tab's Qt-free state: choices, results arriving a layer at a time, the export table."""

from __future__ import annotations

import pytest

from lm_workbench.engine.probing.sweep import ProbeResult, StsResult
from lm_workbench.probing.state import ProbingState


def test_choices_and_params():
    state = ProbingState()
    seen = []
    state.events.choices_changed.connect(lambda: seen.append(1))
    assert state.probe_params("m").to_dict() == {"model": "m", "task": "demo", "kind": "token", "pooling": "mean",
                                                 "seed": 0, "tag_column": None, "text_column": None,
                                                 "label_column": None, "tsv_quoting": "auto"}
    state.set_task("/data/sst.tsv", "sentence")
    state.set_pooling("cls")
    assert state.probe_params("m").kind == "sentence" and state.sts_params("m").pooling == "cls"
    state.set_task("demo", "sentence")  # the demo is a token task
    assert state.kind == "token" and seen
    with pytest.raises(ValueError):
        state.set_pooling("median")  # max is a pooling now (issue 32)


def test_layers_arrive_then_the_result_replaces_them_and_the_table_joins_probe_and_sts():
    state = ProbingState()
    changes = []
    state.events.probe_changed.connect(lambda: changes.append(dict(state.probe_layers)))
    state.add_probe_layer(0, 0.8, 0.5)
    assert state.probe_layers[0] == pytest.approx((0.8, 0.5, 0.3))
    result = ProbeResult("token", [0, 1], [0.8, 0.9], [0.5, 0.4], [0.3, 0.5], 0.2, 10, 5, 3)
    state.finish_probe(result, run_id=7)
    assert len(changes) == 2 and state.probe_run_id == 7 and state.majority == 0.2
    state.finish_sts(StsResult([0, 1, 2], "mean", [0.1, 0.2, 0.3], 60), run_id=8)
    header, rows = state.table()
    assert header == ["layer", "accuracy", "control_accuracy", "selectivity", "majority", "sts_spearman"]
    assert rows[1] == [1, 0.9, 0.4, 0.5, 0.2, 0.2] and rows[2] == [2, "", "", "", "", 0.3]
    state.clear_probe()
    assert state.probe_layers == {} and state.table()[1][0][1] == ""

"""Issue 49.3: a run is reported by its best and its final validation value, and says when no step beat the
untrained model (the best is step 0) or when it ended below its start."""

from __future__ import annotations

import pytest

from lm_workbench.finetune.state import RunResult, validation_headline


@pytest.mark.parametrize("history, lower, expected", [
    # the reported MAM run: step 0 (all one class) 0.675 is the best; it ends at 0.325
    ([[0, {"accuracy": 0.675}], [10, {"accuracy": 0.5}], [20, {"accuracy": 0.325}]], False,
     "validation accuracy: best 0.6750 (step 0), final 0.3250; no step beat the untrained model (step 0), and the "
     "run ended below its start (0.6750 → 0.3250)"),
    ([[0, {"accuracy": 0.5}], [10, {"accuracy": 0.8}], [20, {"accuracy": 0.75}]], False,
     "validation accuracy: best 0.8000 (step 10), final 0.7500"),
    ([[0, {"accuracy": 0.6}], [10, {"accuracy": 0.7}], [20, {"accuracy": 0.55}]], False,
     "validation accuracy: best 0.7000 (step 10), final 0.5500; the run ended below its start (0.6000 → 0.5500)"),
    ([[0, {"validation_loss": 2.0}], [10, {"validation_loss": 1.5}]], True,
     "validation validation_loss: best 1.5000 (step 10), final 1.5000"),
    ([[10, {"accuracy": 0.7}], [20, {"accuracy": 0.6}]], False,  # no step-0 evaluation: nothing to compare with
     "validation accuracy: best 0.7000 (step 10), final 0.6000"),
])
def test_the_headline_names_best_final_and_the_untrained_start(history, lower, expected):
    name = next(iter(history[0][1]))
    best = (min if lower else max)(v[name] for _, v in history)
    assert validation_headline(name, history, best, lower_is_better=lower) == expected


def test_a_run_without_history_keeps_the_short_line():
    result = RunResult(1, "lora", "/x", {"best_validation": {"accuracy": 0.9}, "validation": {"accuracy": 0.9}})
    assert result.best_text("seq-cls") == "best validation accuracy 0.9000"

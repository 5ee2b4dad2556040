"""The Embeddings layer sweep says when a score cannot be computed (leave-one-out accuracy with no neighbour, the
silhouette of one sense): no "nan%" in its summary, no nan in what it exports."""

from __future__ import annotations

import math

import pytest

from lm_workbench.engine.embeddings.layer_sweep import LayerScore
from lm_workbench.ui.embeddings.layer_sweep_panel import LayerSweepPanel

NAN = float("nan")


@pytest.mark.parametrize("scores, says, not_says", [
    ([LayerScore("static", NAN, NAN), LayerScore(1, 0.75, NAN)], ["Best accuracy 75.0% at layer 1",
     "the static baseline is undefined", "silhouette is undefined"], ["nan"]),
    ([LayerScore("static", NAN, NAN), LayerScore(1, NAN, NAN)], ["No accuracy can be computed"], ["nan", "Best"]),
    ([LayerScore("static", 0.5, 0.1), LayerScore(1, 0.75, 0.2)], ["Best accuracy 75.0% at layer 1",
     "static baseline 50.0%"], ["undefined", "nan"]),
])
def test_undefined_scores_are_said_not_printed_as_nan(qtbot, scores, says, not_says):
    panel = LayerSweepPanel()
    qtbot.addWidget(panel)
    panel.set_scores(scores, "bank, 4 occurrences")
    text = panel.summary.text()
    assert all(s in text for s in says), text
    assert not any(s in text.lower() for s in not_says), text
    _, rows = panel.table()
    assert all(v is None or (isinstance(v, float) and not math.isnan(v)) for row in rows for v in row[1:])

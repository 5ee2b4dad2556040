"""Messages say "an encoder", "an encoder-decoder" ("B is a encoder" was in the lecturer's list, issue 36)."""

from __future__ import annotations

from lm_workbench.pretrain.family_objectives import objective_misfit


def test_a_misfit_reads_as_english():
    bart = objective_misfit("bart", "clm", ["decoder"], [])
    assert bart == "clm is for decoder models; a bart model is an encoder-decoder"
    bert = objective_misfit("bert", "clm", ["decoder"], [])
    assert bert == "clm is for decoder models; a bert model is an encoder"
    elmo = objective_misfit("elmo", "mlm", ["encoder"], [])
    assert elmo.endswith("an elmo model is a biLM")

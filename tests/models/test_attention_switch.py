"""Attention weights from every family, whatever transformers keeps its attention setting in. The view of a T5
came back empty with transformers 5.17 (seen on the GPU machine, whose image has it; reproduced here on the CPU with
5.17): ``set_attn_implementation("eager")`` switched the top config only, and the encoder and decoder stacks, which
kept their own copy, stayed on sdpa, which returns no weights. The kind: a submodule holding its own config. Each
row builds that layout (every submodule with a config gets a copy, as 5.17's T5 has) beside the shared one; the
encoding has one attention map per layer, and afterwards every config says what it said before (sdpa stays the
fast path). The oldest lane (transformers 5.17) runs it too."""

from __future__ import annotations

import copy

import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.attention_switch import model_configs
from lm_workbench.engine.models.loading import load_source

FAMILIES = ("bert", "gpt2", "llama", "bart", "t5")
pytestmark = pytest.mark.newest  # a break of a transformers release: both lanes run it (scripts/test-oldest.sh)


def _own_configs(model) -> None:
    """Every submodule that holds the model's config gets a copy of it (transformers 5.17's T5 layout)."""
    for module in list(model.modules())[1:]:
        if getattr(module, "config", None) is model.config:
            module.config = copy.copy(model.config)


@pytest.mark.parametrize("layout", ["shared", "own copies"])
@pytest.mark.parametrize("family", FAMILIES)
def test_attentions_come_back_and_the_setting_is_restored(tiny_models, family, layout):
    loaded = load_source(str(tiny_models[family]), device="cpu", precision="float32")
    if layout == "own copies":
        _own_configs(loaded.model)
        assert len(model_configs(loaded.model)) > 1 or family not in ("bart", "t5")
    before = [getattr(c, "_attn_implementation", None) for c in model_configs(loaded.model)]
    target = "A target." if family in ("bart", "t5") else None
    encoding = encode(loaded, "The bank raised its rates.", target=target)
    assert encoding.attentions is not None and len(encoding.attentions) == loaded.info.layers
    assert [getattr(c, "_attn_implementation", None) for c in model_configs(loaded.model)] == before

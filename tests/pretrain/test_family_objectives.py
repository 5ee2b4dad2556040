"""The one table of which family takes which objective (``lm_workbench.pretrain.family_objectives``), against the real
tokenizers and the objectives the CLI accepts."""

from __future__ import annotations

import pytest

from lm_workbench.engine.pretrain.architectures import ENGINE_FAMILY
from lm_workbench.engine.pretrain.tokenizer_training import FAMILIES as TOKENIZER_FAMILIES
from lm_workbench.engine.pretrain.tokenizer_training import train_tokenizer
from lm_workbench.pretrain import family_objectives as names
from lm_workbench.pretrain.train import check_objective
from lm_workbench.pretrain.spec import PretrainSpec

TEXTS = ["the cat sat on the mat", "a dog ran in the park", "birds sing in the morning light"] * 40


def test_the_table_names_the_engine_families():
    assert names.FAMILIES == TOKENIZER_FAMILIES
    assert names.ENGINE_FAMILY == {k: v.value for k, v in ENGINE_FAMILY.items()}


@pytest.mark.parametrize("family", names.FAMILIES)
def test_the_tokens_listed_are_the_tokens_the_trained_tokenizer_has(family, tmp_path):
    tokenizer = train_tokenizer(family, iter(TEXTS), tmp_path / family, vocab_size=400, num_sentinels=4)
    has = {t for t in ("mask_token", "bos_token", "eos_token", "pad_token", "cls_token", "sep_token")
           if getattr(tokenizer, t, None) is not None and getattr(tokenizer, t + "_id", None) is not None}
    if any(tok.startswith("<extra_id_") for tok in tokenizer.get_vocab()):
        has.add("sentinels")
    assert names.FAMILY_TOKENS[family] == has


@pytest.mark.parametrize("family", names.FAMILIES)
def test_the_cli_accepts_exactly_the_objectives_the_table_fits(family, fresh_home, tmp_path):
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.extensions.registry import ObjectiveRegistry
    from lm_workbench.settings import load_settings

    registry = ObjectiveRegistry.discover(load_settings())
    for record in registry.records:
        if record.status != "ok":
            continue
        objective = registry.objective(record.name)
        misfit = names.objective_misfit(family, record.name, record.families,
                                        objective.requirements(objective.default_config()).tokens)
        spec = PretrainSpec(family=family, objective=record.name, corpus=["c.txt"], out_dir=str(tmp_path))
        if misfit:
            with pytest.raises(WorkbenchError) as caught:
                check_objective(spec, registry)
            assert str(caught.value).startswith(record.name)
        else:
            check_objective(spec, registry)
        assert names.PREFERRED_OBJECTIVE[family] in {r.name for r in registry.records}

"""The objective plugin API: config fields, validation, requirements, seeds, and what plugin_api exports."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pytest

import lm_workbench.engine.plugin_api as api
from lm_workbench.engine.errors import WorkbenchError
from tests.support.objective_helpers import objective, tokenizer_for

BUILT_IN = ("clm", "mlm", "spanbert", "bart", "t5-span")


@dataclass
class DemoConfig:
    rate: float = field(default=0.15, metadata={"help": "a rate", "min": 0.0, "max": 1.0})
    steps: int = field(default=3, metadata={"help": "steps", "min": 1, "max": 10})
    mode: str = field(default="a", metadata={"help": "mode", "choices": ("a", "b")})
    flag: bool = field(default=False, metadata={"help": "a flag"})


def test_plugin_api_exports_the_objective_protocol():
    for name in ("Objective", "Requirements", "Batch", "Preview", "PositionKind", "config_fields",
                 "validate_config", "API_VERSION", "BILM", "Family", "WorkbenchError"):
        assert hasattr(api, name), name
    assert api.API_VERSION == "3.3" and api.BILM == "biLM"
    assert {k.value for k in api.PositionKind} == {
        "unchanged", "masked", "random", "kept", "deleted", "inserted", "moved", "sentinel"}
    assert api.BILM == api.Family.BILM.value  # ELMo is a family now (the string stays for plugins)


def test_config_fields_describe_a_form():
    fields = {f.name: f for f in api.config_fields(DemoConfig)}
    assert [f.kind for f in fields.values()] == ["float", "int", "str", "bool"]
    assert (fields["rate"].min, fields["rate"].max, fields["rate"].help) == (0.0, 1.0, "a rate")
    assert fields["mode"].choices == ("a", "b") and fields["flag"].default is False
    assert fields["rate"].to_dict()["choices"] is None


@pytest.mark.parametrize("change, field_name", [
    ({"rate": 1.5}, "rate"), ({"rate": -0.1}, "rate"), ({"steps": 0}, "steps"), ({"steps": 2.5}, "steps"),
    ({"mode": "c"}, "mode"), ({"flag": 1}, "flag"), ({"rate": float("nan")}, "rate"),
])
def test_validate_config_names_the_field(change, field_name):
    bad = dataclasses.replace(DemoConfig(), **change)
    with pytest.raises(WorkbenchError, match=rf"demo: {field_name} must"):
        api.validate_config(bad, "demo")
    api.validate_config(DemoConfig(), "demo")


def test_config_from_strings_parses_and_refuses():
    config = api.config_from_strings(DemoConfig(), ["rate=0.3", "steps=4", "mode=b", "flag=yes"], "demo")
    assert (config.rate, config.steps, config.mode, config.flag) == (0.3, 4, "b", True)
    for bad, message in [(["nope=1"], "unknown setting 'nope'"), (["rate"], "key=value"),
                         (["rate=abc"], "rate must be a number"), (["rate=2"], "rate must be at most 1"),
                         (["flag=maybe"], "flag must be true or false")]:
        with pytest.raises(WorkbenchError, match=message):
            api.config_from_strings(DemoConfig(), bad, "demo")


def test_config_fields_refuse_what_a_form_cannot_show():
    @dataclass
    class Bad:
        values: list = field(default_factory=list)

    with pytest.raises(TypeError):
        api.config_fields(Bad)


def test_requirements_are_checked_when_declared():
    assert api.Requirements("mlm", ["mask_token"]).tokens == ("mask_token",)
    with pytest.raises(ValueError):
        api.Requirements("nsp-only")
    with pytest.raises(ValueError):
        api.Requirements("mlm", ("cls_tokenz",))


@pytest.mark.parametrize("name", BUILT_IN)
def test_built_ins_declare_everything(name):
    obj = objective(name)
    assert obj.name == name and api.api_version_problem(obj.api_version) is None and obj.paper and obj.description
    assert obj.families and all(isinstance(f, api.Family) for f in obj.families)
    assert obj.requires.head in api.HEADS
    for spec in api.config_fields(obj.Config):
        assert spec.help, (name, spec.name)
    obj.check_config(obj.default_config())


def test_check_requirements_explains_a_missing_token(tiny_models):
    gpt2, bert, t5 = (tokenizer_for(tiny_models, k) for k in ("gpt2", "bert", "t5"))
    objective("mlm").check_requirements(bert)
    with pytest.raises(WorkbenchError, match="mlm needs a mask token"):
        objective("mlm").check_requirements(gpt2)
    objective("t5-span").check_requirements(t5)
    with pytest.raises(WorkbenchError, match="sentinel tokens"):
        objective("t5-span").check_requirements(bert)
    with pytest.raises(WorkbenchError, match="bart needs a mask token"):
        objective("bart").check_requirements(t5)


def test_check_requirements_explains_family_and_head(tiny_models):
    bert = tokenizer_for(tiny_models, "bert")
    info = {"spec": "tiny", "family": "decoder", "has_mlm_head": False, "has_lm_head": True}
    with pytest.raises(WorkbenchError, match="mlm is for encoder models; tiny is a decoder"):
        objective("mlm").check_requirements(bert, info)
    no_head = {"spec": "minilm", "family": "encoder", "has_mlm_head": False, "has_lm_head": False}
    with pytest.raises(WorkbenchError, match="needs a masked-LM head, and minilm has none"):
        objective("spanbert").check_requirements(bert, no_head)
    objective("mlm").check_requirements(bert, dict(no_head, has_mlm_head=True))


def test_check_requirements_on_a_loaded_model(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model

    loaded = load_model(str(tiny_models["gpt2"]))
    objective("clm").check_requirements(loaded.tokenizer, loaded)
    with pytest.raises(WorkbenchError, match="encoder-decoder"):
        objective("bart").check_requirements(None, loaded)


def test_example_rng_depends_only_on_seed_and_index():
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    b.random(100)  # another state, same seed
    draw = lambda rng, i: api.example_rng(rng, i).integers(0, 1 << 30, size=4).tolist()  # noqa: E731
    assert draw(a, 3) == draw(b, 3)
    assert draw(a, 3) != draw(a, 4)
    assert draw(a, 3) != draw(np.random.default_rng(8), 3)


def test_preview_check_finds_length_mismatches():
    K = api.PositionKind
    good = api.Preview(original=[1, 2], input_ids=[1, 9], labels=[-100, 2], kinds=[K.UNCHANGED, K.MASKED])
    good.check()
    assert good.origin == [0, 1] and good.scored_positions == [1]
    assert good.to_dict()["kinds"] == ["unchanged", "masked"]
    with pytest.raises(ValueError):
        api.Preview(original=[1, 2], input_ids=[1, 9], labels=[-100], kinds=[K.UNCHANGED, K.MASKED]).check()


def test_collate_pads_inputs_and_labels():
    K = api.PositionKind
    p1 = api.Preview(original=[5, 6, 7], input_ids=[5, 4, 7], labels=[-100, 6, -100], kinds=[K.UNCHANGED] * 3)
    p2 = api.Preview(original=[5], input_ids=[5], labels=[5], kinds=[K.UNCHANGED])
    batch = api.collate([p1, p2], pad_id=0)
    assert batch.inputs["input_ids"].tolist() == [[5, 4, 7], [5, 0, 0]]
    assert batch.inputs["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch.labels.tolist() == [[-100, 6, -100], [5, -100, -100]]
    assert len(batch) == 2


@pytest.mark.parametrize("name", BUILT_IN)
def test_empty_examples_are_refused(tiny_models, name):
    from tests.support.objective_helpers import TOKENIZER_OF

    tok = tokenizer_for(tiny_models, TOKENIZER_OF[name])
    obj = objective(name)
    with pytest.raises(WorkbenchError):
        obj.make_batch([], tok, np.random.default_rng(0), obj.default_config())
    with pytest.raises(WorkbenchError):
        obj.make_batch([[]], tok, np.random.default_rng(0), obj.default_config())


def test_cross_field_checks():
    mlm = objective("mlm")
    with pytest.raises(WorkbenchError, match="at most 1"):
        mlm.check_config(dataclasses.replace(mlm.default_config(), mask_token_prob=0.9, random_token_prob=0.2))
    bart = objective("bart")
    with pytest.raises(WorkbenchError, match="every noising function is off"):
        bart.check_config(dataclasses.replace(bart.default_config(), sentence_permutation=0.0, text_infilling=0.0))

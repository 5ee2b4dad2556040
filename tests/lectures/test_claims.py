"""Lecture claims: the format (version 2, version 1 still read), ``presets check`` refusing a bad claim, and
``presets verify`` evaluating claims on tiny models against numbers computed here with plain transformers."""

from __future__ import annotations

import copy
import json

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from lm_workbench.cli.main import main
from lm_workbench.lectures.claims import OPS, compare
from lm_workbench.lectures.library import builtin_presets
from lm_workbench.lectures.metrics import REGISTRY, check_metric
from lm_workbench.lectures.metrics.base import token_index
from lm_workbench.lectures.schema import FORMAT, FORMAT_1, PresetError, parse_preset
from lm_workbench.lectures.verify import CANNOT_RUN, FAILS, HOLDS, verify_presets

TEXT = "The cat sat on the"

CLAIMED = {"format": FORMAT, "name": "claimed", "title": "Claimed", "model": "default", "steps": [
    {"view": "attention", "caption": "one", "inputs": {"text": "a b", "pair": "c d"},
     "claims": [{"text": "two separators", "metric": "separators", "op": "==", "value": 2}]},
    {"view": "retrieval", "caption": "two", "settings": {"pooling": "cls"},
     "claims": [{"text": "cls below mean", "metric": "ndcg", "op": "<", "value": {"metric": "ndcg", "step": 3}},
                {"text": "about BM25", "metric": "ndcg", "op": "~=", "value": "bm25_ndcg", "tolerance": 0.1}]},
    {"view": "retrieval", "caption": "three", "settings": {"pooling": "mean"}},
]}


def with_claim(claim: dict, step: int = 0) -> dict:
    data = copy.deepcopy(CLAIMED)
    data["steps"][step]["claims"] = [claim]
    return data


# -- the format ------------------------------------------------------------------------------------------------

def test_claims_round_trip_and_version_2_is_written():
    preset = parse_preset(CLAIMED, "x.json")
    assert [len(s.claims) for s in preset.steps] == [1, 2, 0]
    again = preset.to_dict()
    assert again["format"] == FORMAT == "lm-workbench-preset/2"
    assert again["steps"][1]["claims"] == CLAIMED["steps"][1]["claims"][:1] + [
        {"text": "about BM25", "metric": "ndcg", "op": "~=", "value": "bm25_ndcg", "tolerance": 0.1}]
    assert parse_preset(json.loads(json.dumps(again)), "x.json") == preset


def test_a_version_1_file_is_still_read_and_written_as_version_2():
    old = copy.deepcopy(CLAIMED)
    old["format"] = FORMAT_1
    for step in old["steps"]:
        step.pop("claims", None)
    preset = parse_preset(old, "old.json")
    assert all(not s.claims for s in preset.steps) and preset.to_dict()["format"] == FORMAT
    old["steps"][0]["claims"] = []  # claims are version 2's
    with pytest.raises(PresetError, match=r"old\.json: steps\[0\]: claims need the format 'lm-workbench-preset/2'"):
        parse_preset(old, "old.json")


@pytest.mark.parametrize("claim, step, message", [
    ({"text": "t", "metric": "ndgc", "op": "<", "value": 1}, 1, "steps[1].claims[0].metric: unknown metric 'ndgc' "
                                                                "of the 'retrieval' view"),
    ({"text": "t", "metric": "ndcg", "op": "=>", "value": 1}, 1, "steps[1].claims[0].op: unknown op '=>'"),
    ({"text": "t", "metric": "ndcg", "op": "~=", "value": 1}, 1, "steps[1].claims[0].tolerance: ~= needs a tolerance"),
    ({"text": "t", "metric": "ndcg", "op": "<", "value": 1, "tolerance": 1}, 1, "only ~= takes a tolerance"),
    ({"text": "t", "metric": "ndcg", "op": "<", "value": {"metric": "ndcg", "step": 7}}, 1,
     "steps[1].claims[0].value.step: there is no step 7"),
    ({"text": "t", "metric": "ndcg", "op": "<", "value": "nope"}, 1, "steps[1].claims[0].value: unknown metric 'nope'"),
    ({"text": "t", "metric": "ndcg", "op": "<"}, 1, "steps[1].claims[0].value: is missing"),
    ({"text": "t", "metric": "ndcg", "op": "<", "value": True}, 1, "steps[1].claims[0].value: must be a number"),
    ({"text": "t\nu", "metric": "ndcg", "op": "<", "value": 1}, 1, "steps[1].claims[0].text: must be one line"),
    ({"text": "t", "metric": "ndcg", "args": {"layer": 1}, "op": "<", "value": 1}, 1, "ndcg takes no argument layer"),
    ({"text": "t", "metric": "separators", "op": "<", "value": 1, "why": 1}, 0, "steps[0].claims[0]: unknown key(s) "
                                                                                "why"),
    ({"text": "t", "metric": "separators", "op": "<", "value": {"metric": "ndcg", "step": 2}}, 0, ""),  # fine
])
def test_a_bad_claim_is_refused_naming_its_step(claim, step, message):
    data = with_claim(claim, step)
    if not message:
        assert parse_preset(data, "teacher.json").steps[step].claims
        return
    with pytest.raises(PresetError) as err:
        parse_preset(data, "teacher.json")
    assert str(err.value).startswith("teacher.json: ") and message in str(err.value)


def test_presets_check_refuses_a_bad_claim_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(with_claim({"text": "t", "metric": "effect", "op": "<", "value": 1}, 1)))
    assert main(["presets", "check", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "steps[1].claims[0].metric: unknown metric 'effect' of the 'retrieval' " \
                                          "view" in err
    good = tmp_path / "good.json"
    good.write_text(json.dumps(CLAIMED))
    assert main(["presets", "check", str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["step_claims"] == [1, 2, 0]


@pytest.mark.parametrize("left, op, right, tolerance, expected", [
    (1.0, ">", 0.5, None, True), (0.5, ">", 0.5, None, False), (0.5, ">=", 0.5, None, True),
    (0.4, "<", 0.5, None, True), (0.5, "<=", 0.5, None, True), (0.6, "<=", 0.5, None, False),
    (3.0, "==", 3.0, None, True), (3.0, "!=", 3.0, None, False), (7.0, "!=", 10.0, None, True),
    (0.176, "~=", 0.15, 0.01, False), (0.151, "~=", 0.15, 0.01, True),
])
def test_compare(left, op, right, tolerance, expected):
    assert op in OPS and compare(left, op, right, tolerance) is expected


def test_a_token_is_found_by_its_text_or_its_index():
    tokens = ["ĠThe", "Ġclass", "Ġis", "Ġa"]
    assert [token_index(tokens, t) for t in ("class", "Class", " is", 0, -1, -4)] == [1, 1, 2, 0, 3, 0]
    for missing in ("type", 4, -5):
        with pytest.raises(Exception, match="there is no token"):
            token_index(tokens, missing)


def test_every_built_in_claim_names_a_metric_its_view_has():
    presets = builtin_presets()
    claims = [(p.name, s.view, r) for p in presets for s in p.steps for c in s.claims for r in c.refs()]
    assert len(claims) >= 40
    for name, view, ref in claims:
        own = view if ref.step is None else next(p for p in presets if p.name == name).steps[ref.step - 1].view
        assert check_metric(own, ref.name, ref.args) == "", (name, ref)
    assert {"embeddings", "patching", "retrieval", "probing", "predictions", "masking_lab", "heads", "attention",
            "finetune"} <= set(REGISTRY)


# -- verify on tiny models -------------------------------------------------------------------------------------

def top_probability_by_hand(folder) -> float:
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = model(**tokenizer(TEXT, return_tensors="pt")).logits[0, -1]
    return float(torch.softmax(logits.double(), -1).max())


def tiny_preset(gpt2: str, bert: str, p_top: float) -> dict:
    return {"format": FORMAT, "name": "tiny-claims", "title": "Tiny", "model": gpt2, "steps": [
        {"view": "predictions", "caption": "next token", "inputs": {"text": TEXT}, "claims": [
            {"text": "the top token's probability is p", "metric": "top_probability", "op": "~=", "value": p_top,
             "tolerance": 1e-5},
            {"text": "the top token is surer than it is", "metric": "top_probability", "op": ">",
             "value": p_top + 0.01}]},
        {"view": "attention", "model": bert, "caption": "a pair", "inputs": {"text": "a cat", "pair": "a dog"},
         "settings": {"layer": 0}, "claims": [
            {"text": "BERT's pair has two separators", "metric": "separators", "op": "==", "value": 2},
            {"text": "as many layers as the config", "metric": "layers", "op": "==", "value": 2},
            {"text": "the step-by-step is not asked here", "metric": "walkthrough_gap", "op": "<", "value": 1}]},
        {"view": "patching", "model": "course:t5", "caption": "not built",
         "claims": [{"text": "needs T5", "metric": "contrast", "op": ">", "value": 0}]},
    ]}


def test_verify_evaluates_each_claim_on_the_model_the_preset_names(tiny_models, fresh_home, tmp_path, capsys):
    gpt2, bert = str(tiny_models["gpt2"]), str(tiny_models["bert"])
    from transformers import AutoConfig

    assert AutoConfig.from_pretrained(bert).num_hidden_layers == 2  # what the layers claim says
    p_top = top_probability_by_hand(gpt2)
    file = tmp_path / "tiny.json"
    file.write_text(json.dumps(tiny_preset(gpt2, bert, p_top)))

    assert main(["presets", "verify", "--json", str(file)]) == 1  # one claim fails
    data = json.loads(capsys.readouterr().out)
    rows = data["claims"]
    assert [(r["preset"], r["step"], r["status"]) for r in rows] == [
        ("tiny-claims", 1, HOLDS), ("tiny-claims", 1, FAILS), ("tiny-claims", 2, HOLDS), ("tiny-claims", 2, HOLDS),
        ("tiny-claims", 2, FAILS), ("tiny-claims", 3, CANNOT_RUN)]
    for row in rows:
        assert {"preset", "step", "claim", "value", "holds"} <= set(row)
    assert rows[0]["value"] == pytest.approx(p_top, abs=1e-6) and rows[0]["holds"] is True
    assert rows[1]["value"] == pytest.approx(p_top, abs=1e-6) and rows[1]["holds"] is False
    assert rows[1]["compared_to"] == pytest.approx(p_top + 0.01)
    assert rows[2]["value"] == 2 and rows[3]["value"] == 2
    assert rows[4]["value"] is None and "step-by-step" in rows[4]["reason"]  # the view could not show it: fails
    assert rows[5]["holds"] is None and rows[5]["value"] is None and "course-models --families t5" in rows[5]["reason"]
    assert data["counts"] == {"holds": 3, "fails": 2, "cannot run": 1}

    # only the claims that hold (and one that cannot run): exit 0; the table names each claim with its numbers
    preset = tiny_preset(gpt2, bert, p_top)
    preset["steps"][0]["claims"].pop(1)
    preset["steps"][1]["claims"].pop(2)
    file.write_text(json.dumps(preset))
    assert main(["presets", "verify", str(file)]) == 0
    out = capsys.readouterr().out
    assert "HOLDS" in out and "CANNOT RUN" in out and "the top token's probability is p" in out
    assert f"{p_top:.4g}" in out and "4 claims: 3 hold, 0 fail, 1 cannot run here" in out


def test_a_claim_comparing_with_a_step_that_cannot_run_cannot_run(tiny_models, fresh_home):
    gpt2 = str(tiny_models["gpt2"])
    preset = parse_preset({"format": FORMAT, "name": "cross", "title": "Cross", "model": gpt2, "steps": [
        {"view": "patching", "model": "course:gpt2", "caption": "missing"},
        {"view": "patching", "caption": "here", "settings": {"clean": "a b", "corrupt": "a c", "answer": "b"},
         "claims": [{"text": "more than there", "metric": "clean_metric", "op": ">",
                     "value": {"metric": "clean_metric", "step": 1}}]}]}, "cross.json")
    [outcome] = verify_presets([preset], course_models={}, default_model="minilm")
    assert outcome.status == CANNOT_RUN and outcome.reason.startswith("step 1, which this claim compares with")
    absent = parse_preset({**preset.to_dict(), "model": str(tiny_models.root / "no-such-model")}, "absent.json")
    outcomes = verify_presets([absent], course_models={"gpt2": gpt2}, default_model="minilm")
    assert [o.status for o in outcomes] == [CANNOT_RUN] and "no-such-model is not on this machine" in \
        outcomes[0].reason


def test_verify_refuses_an_unknown_name_in_one_line(fresh_home, capsys):
    assert main(["presets", "verify", "no-such-preset"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no-such-preset: neither a preset file nor a preset's name" in err


def test_editing_a_preset_keeps_its_claims_and_what_they_compare_with():
    from lm_workbench.lectures.library import find_builtin
    from lm_workbench.lectures.recording import LectureDraft

    preset = find_builtin("why-sbert")
    draft = LectureDraft.from_preset(preset)
    assert draft.to_dict() == preset.to_dict()  # opened and saved again: the same file, claims included
    draft.move(0, 2)  # the mean-pooling step goes last: the claims that compare with it follow it
    steps = draft.to_dict()["steps"]
    assert steps[2]["caption"] == preset.steps[0].caption
    assert [c["value"] for c in steps[0]["claims"]][0] == {"metric": "ndcg", "step": 2}  # MiniLM's step, now 2nd
    assert parse_preset(draft.to_dict(), "x").steps[1].claims[1].value.step == 3  # the mean-pooling step, now 3rd
    draft.delete(2)  # a claim comparing with a deleted step goes with it; the others stay
    texts = [c["text"] for s in draft.to_dict()["steps"] for c in s.get("claims", [])]
    assert texts == [preset.steps[1].claims[0].text, preset.steps[1].claims[1].text, preset.steps[2].claims[0].text]


def test_a_fill_mask_step_computes_its_top_probability(tiny_models):
    """The predictions metric on an MLM (fill-mask returns five values since the window line: the metric's
    unpacking of four raised ValueError and ended `presets verify`), against plain transformers' softmax."""
    from transformers import AutoModelForMaskedLM

    from lm_workbench.lectures.metrics import StepRun, metric_value
    from lm_workbench.lectures.verify import ModelCache

    bert = str(tiny_models["bert"])
    tok = AutoTokenizer.from_pretrained(bert)
    text = f"The cat {tok.mask_token} on the mat."
    run = StepRun("predictions", {}, {"text": text}, bert, ModelCache())
    got = metric_value(run, "top_probability", {})
    model = AutoModelForMaskedLM.from_pretrained(bert).eval()
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[0]
    position = int((enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0])
    assert got == pytest.approx(float(torch.softmax(logits[position].float(), -1).max()), abs=1e-5)

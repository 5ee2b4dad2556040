"""One answer per exercise kind computed here by hand on a tiny model (plain transformers, hooks written here), so
the check is not the code checking itself; and ``lm-workbench guide check`` on the built-in next-token page:
right, wrong, and a model the page cannot be answered on."""

from __future__ import annotations

import json
import re

import torch

from lm_workbench.cli.main import main
from lm_workbench.guide.check import answer_of, check_answer
from lm_workbench.guide.library import builtin_guide, load_page_text
from lm_workbench.guide.page import FORMAT

TEXT = "The cat sat on the"


def page(view: str, exercise: str, extra: str = "", text: str = TEXT) -> object:
    return load_page_text(f"format: {FORMAT}\nid: hand\ntitle: Hand\nlecture: 3\nview: {view}\nmodel: default\n"
                          f"text: {text}\nexercise: {exercise}\nask: ?\n{extra}---\nBody.\n", "hand.page")


def _gpt2(tiny_models, model_cache):
    loaded = model_cache(str(tiny_models["gpt2"]))
    ids = loaded.tokenizer(TEXT, return_tensors="pt")["input_ids"]
    return loaded, ids


def test_number_token_count_by_hand(tiny_models, model_cache):
    spec = str(tiny_models["bert"])
    assert model_cache(spec).tokenizer.tokenize("a b c") == ["a", "b", "c"]
    p = page("tokens", "number", "question: token_count\ntolerance: 0\n", text="a b c")
    assert answer_of(p, spec, model_cache, {}).value == 5.0  # [CLS] a b c [SEP]
    assert check_answer(p, "5", spec, model_cache, course_models={}).correct
    assert check_answer(p, "4", spec, model_cache, course_models={}).correct is False


def test_click_layer_logit_lens_by_hand(tiny_models, model_cache):
    loaded, ids = _gpt2(tiny_models, model_cache)
    model = loaded.model
    with torch.no_grad():
        hidden = model(input_ids=ids, output_hidden_states=True).hidden_states
        tops = [int(model.lm_head(model.transformer.ln_f(h))[0, -1].argmax()) for h in hidden[:-1]]
        tops.append(int(model.lm_head(hidden[-1])[0, -1].argmax()))  # the last one is normed already
    first = tops.index(tops[-1])
    p = page("lens", "click-layer", "question: first_layer\n")
    assert answer_of(p, loaded.info.spec, model_cache, {}).value == first
    assert check_answer(p, str(first), loaded.info.spec, model_cache, course_models={}).correct


def test_click_head_zero_ablation_by_hand(tiny_models, model_cache):
    loaded, ids = _gpt2(tiny_models, model_cache)
    model, tok = loaded.model, loaded.tokenizer
    target, contrast = tok.convert_tokens_to_ids(["Ġthe", "Ġa"])
    n_heads = model.config.n_head
    width = model.config.n_embd // n_heads

    def difference(layer=None, head=None):
        handle = None
        if layer is not None:
            def zero(_module, args):
                x = args[0].clone()
                x[..., head * width:(head + 1) * width] = 0  # the head's output before the output projection
                return (x,)
            handle = model.transformer.h[layer].attn.c_proj.register_forward_pre_hook(zero)
        try:
            with torch.no_grad():
                logits = model(input_ids=ids).logits[0, -1]
        finally:
            if handle is not None:
                handle.remove()
        return float(logits[target] - logits[contrast])

    clean = difference()
    changes = {(layer, head): difference(layer, head) - clean for layer in range(model.config.n_layer)
               for head in range(n_heads)}
    hand = min(changes, key=changes.get)
    p = load_page_text(f"format: {FORMAT}\nid: hand\ntitle: Hand\nlecture: 3\nview: heads\nmodel: default\n"
                       f"text: {TEXT}\n" 'settings: {"target": " the", "contrast": " a", "how": "zero"}\n'
                       "exercise: click-head\nask: ?\nquestion: largest_drop_head\n---\nBody.\n", "hand.page")
    expected = answer_of(p, loaded.info.spec, model_cache, {})
    assert hand in expected.accepted
    assert check_answer(p, f"{hand[0]}.{hand[1]}", loaded.info.spec, model_cache, course_models={}).correct


def test_click_token_a_decoders_first_token_sees_only_itself(tiny_models, model_cache):
    p = builtin_guide().page("causal-mask")
    for family in ("gpt2", "llama"):
        spec = str(tiny_models[family])
        assert answer_of(p, spec, model_cache, {}).value == 0  # position 0 can attend to position 0 alone
        assert check_answer(p, "0", spec, model_cache, course_models={}).correct
        assert check_answer(p, "1", spec, model_cache, course_models={}).correct is False


def test_choose_bitfit_trains_fewer_than_full_fine_tuning(tiny_models, model_cache):
    spec = str(tiny_models["bert"])
    p = load_page_text(f"format: {FORMAT}\nid: hand\ntitle: Hand\nlecture: 4\nview: finetune\nmodel: default\n"
                       'settings: {"task": "seq-cls", "show": "parameters"}\nexercise: choose\nask: ?\n'
                       'option: Full = trainable_parameters {"method": "full"}\n'
                       'option: BitFit = trainable_parameters {"method": "bitfit"}\npick: smallest\n---\nBody.\n',
                       "hand.page")
    loaded = model_cache(spec)
    every = sum(x.numel() for x in loaded.model.base_model.parameters())
    biases = sum(x.numel() for n, x in loaded.model.base_model.named_parameters() if n.endswith("bias"))
    expected = answer_of(p, spec, model_cache, {})
    assert expected.value == "BitFit"
    full, bitfit = (int(x.replace(",", "")) for x in re.findall(r"(?:Full|BitFit): ([\d,]+)", expected.explanation))
    assert full >= every and biases <= bitfit < biases + 2000  # the head's few weights on top
    assert check_answer(p, "bitfit", spec, model_cache, course_models={}).correct
    assert check_answer(p, "1", spec, model_cache, course_models={}).correct is False  # option 1 is Full


def _top_next(loaded) -> str:
    ids = loaded.tokenizer(builtin_guide().page("next-token").step.inputs["text"], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        return loaded.tokenizer.convert_ids_to_tokens(int(loaded.model(input_ids=ids).logits[0, -1].argmax()))


def test_guide_check_on_the_command_line(tiny_models, model_cache, capsys, fresh_home):
    gpt2 = str(tiny_models["gpt2"])
    top = _top_next(model_cache(gpt2))
    assert main(["guide", "check", "next-token", "--model", gpt2, "--answer", top.replace("Ġ", " "), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"page", "correct", "expected", "explanation"} <= set(out)
    assert (out["page"], out["correct"], out["expected"]) == ("next-token", True, top)
    assert main(["guide", "check", "15", "--model", gpt2, "--answer", "zzzz", "--json"]) == 1
    wrong = json.loads(capsys.readouterr().out)
    assert wrong["correct"] is False and wrong["expected"] == top and wrong["hint"]
    assert main(["guide", "check", "next-token", "--model", str(tiny_models["bert"]), "--answer", "x", "--json"]) == 2
    refused = json.loads(capsys.readouterr().out)
    assert refused["correct"] is None and refused["expected"] is None
    assert "asks about a decoder model" in refused["explanation"] and "course:gpt2" in refused["explanation"]
    assert main(["guide", "show", "next-token", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["exercise"]["kind"] == "token" and "expected" not in json.dumps(shown)
    assert main(["guide", "list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["pages"]) >= 24


def test_a_page_whose_course_model_is_not_built_says_how_to_build_it(tiny_models, model_cache):
    result = check_answer(builtin_guide().page("t5-sentinels"), "4", str(tiny_models["bert"]), model_cache,
                          course_models={})
    assert result.correct is None and result.expected is None
    assert "lm-workbench course-models --families t5" in result.explanation

"""Gradient × input for every family, against a hand-written autograd loop: a hook on the word-embedding
module keeps its output and its gradient while the model runs from its ids (Llama, BART, T5, a fine-tuned
classifier); an encoder-decoder's target is its greedy output token, found here by a plain decoding loop;
a prompt's label target equals the verbalizer token at the filled template's answer slot."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.attribution.attribute import attribute, attribute_target_job
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import run_to_completion
from tests.support.grad_reference import hooked_grad_input

PROMPT = "The cat sat on the"


def test_grad_input_on_llama_equals_plain_autograd(tiny_models):
    loaded = load_model(str(tiny_models["llama"]))
    result = attribute(loaded, PROMPT, "grad-input")
    ids = loaded.tokenizer(PROMPT)["input_ids"]
    model = loaded.model
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
    assert result.target_id == int(torch.argmax(logits)) and result.position == len(ids) - 1
    expected = hooked_grad_input(model, model.get_input_embeddings(),
                                  lambda m: m(input_ids=torch.tensor([ids])).logits[0, -1, result.target_id])
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)


def _greedy(model, ids: list[int], n: int) -> list[int]:
    """The decoder's start token and n greedy tokens, by a plain loop without a cache."""
    out = [model.config.decoder_start_token_id]
    with torch.no_grad():
        for _ in range(n):
            logits = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([out])).logits[0, -1]
            out.append(int(torch.argmax(logits)))
    return out


@pytest.mark.parametrize("kind", ["bart", "t5"])
@pytest.mark.parametrize("output_position", [0, 2])
def test_grad_input_on_an_encoder_decoder_explains_its_greedy_output_token(tiny_models, kind, output_position):
    loaded = load_model(str(tiny_models[kind]))
    text = "the cat sat on the mat"
    result = attribute(loaded, text, "grad-input", output_position=output_position)
    model = loaded.model
    ids = loaded.tokenizer(text)["input_ids"]
    decoder = _greedy(model, ids, output_position + 1)
    assert result.position == output_position and result.target_id == decoder[output_position + 1]
    assert len(result.scores) == len(ids)  # over the encoder's input tokens
    prefix = torch.tensor([decoder[:output_position + 1]])

    def run(m):
        return m(input_ids=torch.tensor([ids]), decoder_input_ids=prefix).logits[0, output_position, result.target_id]

    with torch.no_grad():
        assert result.target_logit == pytest.approx(float(run(model)), abs=1e-5)
    expected = hooked_grad_input(model, model.get_encoder().get_input_embeddings(), run)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
    # integrated gradients reach the same target; rollout is refused with a reason
    ig = attribute(loaded, text, "integrated-gradients", steps=8, output_position=output_position)
    assert ig.target_id == result.target_id and ig.completeness_gap is not None
    with pytest.raises(WorkbenchError, match="cross-attention"):
        attribute(loaded, text, "rollout")


@pytest.fixture(scope="module")
def classifier_folder(tiny_models, tmp_path_factory):
    """A fine-tuning output folder as the Fine-tune tab writes it: LoRA on the tiny BERT, two labels."""
    from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER, write_manifest
    from lm_workbench.engine.finetune.task_model import build_task_model
    from lm_workbench.extensions.registry import FineTuneMethodRegistry

    folder = tmp_path_factory.mktemp("cls")
    method = FineTuneMethodRegistry.discover().methods()["lora"]
    torch.manual_seed(3)
    model = method.apply(build_task_model(tiny_models["bert"], "seq-cls", ["neg", "pos"]), method.default_config(),
                         "seq-cls")
    method.save(model.eval(), folder / ADAPTER_FOLDER)
    write_manifest(folder, base_model=str(tiny_models["bert"]), task="seq-cls", method="lora",
                   method_config={}, labels=["neg", "pos"], text_columns=None, max_length=64, run_id=None)
    return folder, method


def test_a_fine_tuned_classifiers_label_against_plain_autograd(classifier_folder):
    from lm_workbench.engine.attribution.classifier import ClassifierModel, classifier_target
    from lm_workbench.engine.finetune import inference
    from lm_workbench.engine.finetune.saved import load_finetuned

    folder, method = classifier_folder
    tuned = load_finetuned(folder, method)
    text = "a warm and funny film"
    predicted = inference.classify(tuned.model, tuned.tokenizer, [(text, None)], tuned.labels, 64)[0]["label"]
    wrapped = ClassifierModel(tuned)
    target = classifier_target(wrapped, text)
    assert target.token == predicted and target.site.position == 0  # BERT pools [CLS]
    enc = tuned.tokenizer(text)
    inputs = {k: torch.tensor([v]) for k, v in enc.items()}
    for label in ("neg", "pos"):
        chosen = classifier_target(wrapped, text, label=label)
        result = run_to_completion(attribute_target_job(wrapped, chosen, "grad-input"))
        index = tuned.labels.index(label)
        with torch.no_grad():
            assert result.target_logit == pytest.approx(float(tuned.model(**inputs).logits[0, index]), abs=1e-5)
        expected = hooked_grad_input(tuned.model, tuned.model.get_input_embeddings(),
                                      lambda m: m(**inputs).logits[0, index])
        np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
        assert result.tokens == tuned.tokenizer.convert_ids_to_tokens(enc["input_ids"])
    rollout = run_to_completion(attribute_target_job(wrapped, target, "rollout"))
    assert len(rollout.scores) == len(enc["input_ids"]) and abs(sum(rollout.scores) - 1.0) < 1e-5
    with pytest.raises(WorkbenchError, match="the label is one of neg, pos"):
        classifier_target(wrapped, text, label="maybe")


def test_a_classifiers_foil_is_another_label(classifier_folder):
    from lm_workbench.engine.attribution.classifier import ClassifierModel, classifier_target
    from lm_workbench.engine.finetune.saved import load_finetuned

    folder, method = classifier_folder
    tuned = load_finetuned(folder, method)
    wrapped, text = ClassifierModel(tuned), "a warm and funny film"
    inputs = {k: torch.tensor([v]) for k, v in tuned.tokenizer(text).items()}
    chosen = classifier_target(wrapped, text, label="pos", contrast="neg")
    result = run_to_completion(attribute_target_job(wrapped, chosen, "grad-input"))
    maps = [hooked_grad_input(tuned.model, tuned.model.get_input_embeddings(),
                              lambda m, i=i: m(**inputs).logits[0, i]) for i in (1, 0)]  # pos, neg
    np.testing.assert_allclose(result.scores, maps[0] - maps[1], rtol=1e-4, atol=1e-7)
    assert (result.contrast, result.contrast_id) == ("neg", 0)
    top = classifier_target(wrapped, text)
    other = classifier_target(wrapped, text, second_choice=True)
    assert other.id == top.id and other.contrast == ({"neg", "pos"} - {top.token}).pop()
    with pytest.raises(WorkbenchError, match="one of the labels neg, pos"):
        classifier_target(wrapped, text, contrast="maybe")


@pytest.mark.parametrize("kind, template, mode", [("bert", "[x] It was [z].", "cloze"),
                                                  ("gpt2", "[x] It was[z]", "prefix")])
def test_a_prompts_label_target_is_the_verbalizer_token_at_the_answer_slot(tiny_models, kind, template, mode):
    from lm_workbench.engine.attribution.prompt import prompt_label_target
    from lm_workbench.engine.prompting.scoring import score_example
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    loaded = load_model(str(tiny_models[kind]))
    scored = score_example(loaded, Template.parse(template, mode), Verbalizer.parse("pos=good;neg=bad"), "a film")
    for label in ("pos", "neg"):
        target = prompt_label_target(loaded, scored, label)
        answer = next(a for a in scored.answers if a.label == label)
        assert target.id == answer.token_ids[0] and target.site.inputs["input_ids"][0].tolist() == scored.token_ids
        result = run_to_completion(attribute_target_job(loaded, target, "grad-input"))
        # the label's first-token log-probability as scoring computed it equals log-softmax of this logit
        ids = torch.tensor([scored.token_ids])
        with torch.no_grad():
            logits = loaded.model(input_ids=ids).logits[0, target.site.position].double()
        assert result.target_logit == pytest.approx(float(logits[target.id]), abs=1e-5)
        # (scoring runs padded batches of several rows: float32 rounding differs by ~1e-4)
        assert float(torch.log_softmax(logits, -1)[target.id]) == pytest.approx(answer.token_log_probs[0], abs=1e-3)

"""Prompt scoring on tiny real models against log-probabilities computed here from the models' logits,
calibration of a real prompt, the window's dropped demonstrations, and evaluation over labelled data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lm_workbench.engine.data.tasks import read_classification
from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.prompting.calibration import content_free_probs
from lm_workbench.engine.prompting.evaluate import EvaluationSettings, PromptChoice, accuracy_vs_k, evaluate_prompts
from lm_workbench.engine.prompting.fewshot import Demonstration
from lm_workbench.engine.prompting.model_check import is_small_model, small_model_note
from lm_workbench.engine.prompting.scoring import PromptInput, answer_tokenizations, score_batch, score_example
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer
from lm_workbench.engine.progress import Partial, Progress, run_to_completion


@pytest.fixture(scope="module")
def models(tiny_models):
    torch.set_num_threads(1)
    return {k: load_model(str(tiny_models[k])) for k in ("bert", "gpt2", "bart")}


def log_softmax(logits):
    x = logits.double()
    return x - torch.logsumexp(x, dim=-1, keepdim=True)


def lse(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def test_cloze_single_token_label_scores_equal_the_models_log_probabilities(models):
    loaded = models["bert"]
    tok, model = loaded.tokenizer, loaded.model
    scored = score_example(loaded, Template.parse("[x] so it [z] a film."), Verbalizer.parse("pos=is,was;neg=not"),
                           "we liked the story")
    enc = tok("we liked the story so it [MASK] a film.", return_tensors="pt")
    slot = enc["input_ids"][0].tolist().index(tok.mask_token_id)
    with torch.no_grad():
        lp = log_softmax(model(**enc).logits[0, slot])
    ids = {w: tok.convert_tokens_to_ids(w) for w in ("is", "was", "not")}
    expected = [lse([float(lp[ids["is"]]), float(lp[ids["was"]])]), float(lp[ids["not"]])]
    assert scored.label_scores == pytest.approx(expected, abs=1e-5)
    assert sum(scored.label_probs) == pytest.approx(1.0)
    assert scored.label_probs[0] == pytest.approx(math.exp(expected[0]) / sum(math.exp(e) for e in expected))
    assert scored.tokens[scored.answer_positions[0]] == "[MASK]" and scored.token_ids == enc["input_ids"][0].tolist()
    best = int(torch.argmax(lp))
    assert scored.top_k[0].id == best and len(scored.top_k) == 10


def _mlm_log_prob(loaded, text_before, text_after, answer_ids, method):
    """Hand-built masked inputs: left-to-right fills the masks one by one; PLL masks one subword at a time."""
    tok, model = loaded.tokenizer, loaded.model
    head = tok(text_before, add_special_tokens=False)["input_ids"]
    tail = tok(text_after, add_special_tokens=False)["input_ids"]
    total = []
    n = len(answer_ids)
    for i in range(n):
        if method == "pll":
            slot = answer_ids[:i] + [tok.mask_token_id] + answer_ids[i + 1:]
        else:
            slot = answer_ids[:i] + [tok.mask_token_id] * (n - i)
        ids = [tok.cls_token_id] + head + slot + tail + [tok.sep_token_id]
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0]
        total.append(float(log_softmax(logits[1 + len(head) + i])[answer_ids[i]]))
    return total


@pytest.mark.parametrize("method", ["left-to-right", "pll"])
def test_cloze_multi_token_answers_and_length_normalisation(models, method):
    loaded = models["bert"]
    tok = loaded.tokenizer
    verbalizer = Verbalizer.parse("pos=great,wonderful;neg=terrible")
    template = Template.parse("[x] it was [z] .")
    plain = score_example(loaded, template, verbalizer, "the story", multi_token=method)
    normalised = score_example(loaded, template, verbalizer, "the story", multi_token=method, length_normalise=True)
    per_answer = {}
    for word in ("great", "wonderful", "terrible"):
        ids = tok(word, add_special_tokens=False)["input_ids"]
        assert len(ids) > 1  # these are multi-token in the tiny vocabulary
        per_answer[word] = _mlm_log_prob(loaded, "the story it was", ".", ids, method)
    got = {a.answer: a for a in plain.answers}
    for word, lps in per_answer.items():
        assert list(got[word].token_log_probs) == pytest.approx(lps, abs=1e-5)
    # by hand: summed scores, or the mean per token; a label is the log of its answers' summed probabilities
    s = {w: sum(v) for w, v in per_answer.items()}
    m = {w: sum(v) / len(v) for w, v in per_answer.items()}
    assert plain.label_scores == pytest.approx([lse([s["great"], s["wonderful"]]), s["terrible"]], abs=1e-5)
    assert normalised.label_scores == pytest.approx([lse([m["great"], m["wonderful"]]), m["terrible"]], abs=1e-5)


def test_prefix_scores_of_a_decoder_equal_full_sequence_log_probabilities(models):
    loaded = models["gpt2"]
    tok, model = loaded.tokenizer, loaded.model
    verbalizer = Verbalizer.parse("pos=great,the;neg=terrible,bad")
    scored = score_example(loaded, Template.parse("[x] Overall, this movie is [z]", "prefix"), verbalizer,
                           "I saw it twice.")
    prompt = "I saw it twice. Overall, this movie is"
    head = tok(prompt)["input_ids"]
    assert scored.token_ids == head and scored.answer_positions == [len(head)]
    expected = {}
    for word in ("great", "the", "terrible", "bad"):
        whole = tok(prompt + " " + word)["input_ids"]
        answer = whole[len(head):]
        with torch.no_grad():  # one forward of prompt + answer, no cache
            lp = log_softmax(model(input_ids=torch.tensor([whole])).logits[0])
        expected[word] = sum(float(lp[len(head) - 1 + j, t]) for j, t in enumerate(answer))
        got = next(a for a in scored.answers if a.answer == word)
        assert list(got.token_ids) == answer
        shown = answer_tokenizations(loaded, Template.parse("[x] Overall, this movie is [z]", "prefix"), verbalizer,
                                     "I saw it twice.")
        assert next(a for a in shown if a.answer == word).ids == tuple(answer)
        assert got.score == pytest.approx(expected[word], abs=1e-4)
    assert scored.label_scores == pytest.approx([lse([expected["great"], expected["the"]]),
                                                 lse([expected["terrible"], expected["bad"]])], abs=1e-4)


def test_prefix_scores_of_an_encoder_decoder_equal_teacher_forced_log_probabilities(models):
    loaded = models["bart"]
    tok, model = loaded.tokenizer, loaded.model
    scored = score_example(loaded, Template.parse("[x] It was [z]", "prefix"), Verbalizer.parse("a=good;b=bad"),
                           "A film.")
    source = tok("A film. It was", return_tensors="pt")
    for word in ("good", "bad"):
        ids = tok(word, add_special_tokens=False)["input_ids"]
        decoder = [model.config.decoder_start_token_id] + ids[:-1]
        with torch.no_grad():
            lp = log_softmax(model(**source, decoder_input_ids=torch.tensor([decoder])).logits[0])
        expected = sum(float(lp[j, t]) for j, t in enumerate(ids))
        assert next(a for a in scored.answers if a.answer == word).score == pytest.approx(expected, abs=1e-4)


def test_wrong_model_for_the_template_is_refused(models):
    with pytest.raises(MissingHeadError, match="cloze template needs a masked LM"):
        score_example(models["gpt2"], Template.parse("[x] it was [z]."), Verbalizer.parse("a=good;b=bad"), "x")
    with pytest.raises(MissingHeadError, match="prefix template needs a decoder"):
        score_example(models["bert"], Template.parse("[x] it was [z]", "prefix"), Verbalizer.parse("a=is;b=was"),
                      "x")


def test_demonstrations_that_overflow_the_window_are_dropped_first_ones_first(models):
    loaded = models["gpt2"]  # a 64-token window
    template, verbalizer = Template.parse("[x] It was [z]", "prefix"), Verbalizer.parse("pos=great;neg=bad")
    demos = [Demonstration("A long and winding review of a film " * 2, "pos"), Demonstration("Dull.", "neg"),
             Demonstration("Fine.", "pos")]
    scored = score_example(loaded, template, verbalizer, "Nice.", demonstrations=demos)
    assert scored.dropped_demonstrations == [0] and scored.demonstrations_used == [1, 2]
    assert scored.text.startswith("Dull. It was bad\n\nFine. It was great\n\nNice. It was")
    with pytest.raises(WorkbenchError, match=r"the model reads 64; all demonstrations were dropped \(1, 2, 3\)"):
        score_example(loaded, template, verbalizer, "word " * 80, demonstrations=demos)


def test_content_free_probabilities_average_the_three_inputs_in_the_same_prompt(models):
    loaded = models["bert"]
    template, verbalizer = Template.parse("[x] it [z] good ."), Verbalizer.parse("a=is;b=was;c=not")
    demos = [Demonstration("the story", "a"), Demonstration("a film", "c")]
    p_cf = content_free_probs(loaded, template, verbalizer, demos)
    tok, model = loaded.tokenizer, loaded.model
    rows = []
    for text in ("N/A", "", "[MASK]"):
        prompt = f"the story it is good .\n\na film it not good .\n\n{text} it [MASK] good ."
        enc = tok(prompt, return_tensors="pt")
        slot = [i for i, t in enumerate(enc["input_ids"][0].tolist()) if t == tok.mask_token_id][-1]
        with torch.no_grad():
            lp = log_softmax(model(**enc).logits[0, slot])
        scores = np.array([float(lp[tok.convert_tokens_to_ids(w)]) for w in ("is", "was", "not")])
        rows.append(np.exp(scores) / np.exp(scores).sum())
    assert p_cf == pytest.approx(np.mean(rows, axis=0), abs=1e-6)


@pytest.fixture(scope="module")
def review_file(tmp_path_factory):
    rows = [("the story is good", "pos"), ("the film is bad", "neg"), ("good and warm", "pos"),
            ("dull and bad", "neg"), ("a good film", "pos"), ("a bad story", "neg")] * 2
    path = tmp_path_factory.mktemp("prompting") / "reviews.tsv"
    path.write_text("sentence\tlabel\n" + "\n".join(f"{t}\t{label}" for t, label in rows) + "\n", encoding="utf-8")
    return path


def test_evaluation_reports_metrics_matching_its_predictions_raw_and_calibrated(models, review_file):
    loaded = models["bert"]
    data = read_classification(review_file)
    prompts = [PromptChoice(Template.parse("[x] it [z] ."), Verbalizer.parse("pos=is;neg=was"), "A"),
               PromptChoice(Template.parse("[x] , [z] ."), Verbalizer.parse("pos=the;neg=a"), "B")]
    settings = EvaluationSettings(k_shot=2, seed=1, selection="balanced", calibrate=True)
    reports = []
    gen = evaluate_prompts(loaded, data, prompts, settings)
    while True:
        try:
            reports.append(next(gen))
        except StopIteration as stop:
            result = stop.value
            break
    assert sum(isinstance(r, Partial) for r in reports) == 2
    assert [r.done for r in reports if isinstance(r, Progress)] == [8, 10, 18, 20]  # batches of 8 examples
    assert len(result.demonstrations) == 2 and {data.examples[i].label for i in result.demonstrations} == {"pos", "neg"}
    assert len(result.examples) == 10 and not set(result.examples) & set(result.demonstrations)
    for evaluation in result.prompts:
        gold = evaluation.gold
        for scores, probs in ((evaluation.raw, evaluation.probs), (evaluation.calibrated, evaluation.calibrated_probs)):
            predicted = [evaluation.labels[int(np.argmax(p))] for p in probs]
            assert scores.predicted == predicted
            assert scores.accuracy == pytest.approx(np.mean([g == p for g, p in zip(gold, predicted)]))
            assert sum(map(sum, scores.confusion)) == 10
            assert sum(scores.confusion[i][i] for i in range(2)) == round(scores.accuracy * 10)
        p_cf = np.array(evaluation.p_cf)
        q = np.array(evaluation.probs) / p_cf
        assert np.array(evaluation.calibrated_probs) == pytest.approx(q / q.sum(axis=1, keepdims=True))


def test_evaluation_refuses_uncovered_labels_and_mismatched_pairs(models, review_file):
    data = read_classification(review_file)
    with pytest.raises(WorkbenchError, match="label 'neg' in the data has no answer words"):
        run_to_completion(evaluate_prompts(models["bert"], data, [
            PromptChoice(Template.parse("[x] [z]"), Verbalizer.parse("pos=is;other=was"))]))
    with pytest.raises(WorkbenchError, match="has single texts"):
        run_to_completion(evaluate_prompts(models["bert"], data, [
            PromptChoice(Template.parse("[x] [x2] [z]"), Verbalizer.parse("pos=is;neg=was"))]))


def test_accuracy_against_k_gives_one_point_per_k_over_the_seeds(models, review_file):
    data = read_classification(review_file)
    prompt = PromptChoice(Template.parse("[x] it [z] .", "cloze"), Verbalizer.parse("pos=is;neg=was"))
    points = run_to_completion(accuracy_vs_k(models["bert"], data, prompt, ks=[0, 2], seeds=[0, 1],
                                             settings=EvaluationSettings(selection="balanced", limit=4)))
    assert [p.k for p in points] == [0, 2]
    assert len(points[0].accuracies) == 1 and len(points[1].accuracies) == 2
    assert points[1].mean == pytest.approx(np.mean(points[1].accuracies))
    assert points[1].std == pytest.approx(np.std(points[1].accuracies))


def test_tiny_models_are_flagged_as_too_small_for_prompting(models):
    assert is_small_model(models["bert"])
    assert "near chance (chance is 50% with 2 labels)" in small_model_note(models["bert"], 2)


@pytest.mark.parametrize("kind, mode", [("bert", "cloze"), ("gpt2", "prefix"), ("bart", "prefix")])
def test_a_padded_batch_scores_each_input_as_it_scores_alone(models, kind, mode):
    loaded = models[kind]
    template = Template.parse("[x] It was [z]" + (" ." if mode == "cloze" else ""), mode)
    verbalizer = Verbalizer.parse("pos=great,is;neg=terrible")
    inputs = [PromptInput("Short."), PromptInput("A much longer input sentence about the film and its story."),
              PromptInput("Mid length one.", demonstrations=(Demonstration("Fine.", "pos"),))]
    batch = score_batch(loaded, template, verbalizer, inputs)
    for item, scored in zip(inputs, batch):
        alone = score_example(loaded, template, verbalizer, item.x, demonstrations=item.demonstrations)
        assert scored.token_ids == alone.token_ids
        assert [a.token_log_probs for a in scored.answers] == [
            pytest.approx(a.token_log_probs, abs=1e-4) for a in alone.answers]
        assert scored.top_k[0].id == alone.top_k[0].id

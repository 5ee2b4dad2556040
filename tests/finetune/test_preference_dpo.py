"""Preference tuning's parts against computations written here: the DPO loss from two models' log-probabilities,
the answer-only masks, the reference models, and the pair reader's skips."""

from __future__ import annotations

import json
import math

import pytest
import torch

from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer
from lm_workbench.engine.instruct.template import IGNORE_INDEX, resolve_template
from lm_workbench.engine.preference.data import PreferencePair, read_preference
from lm_workbench.engine.preference.dpo import dpo_terms
from lm_workbench.engine.preference.encoding import collate_pairs, encode_pairs, pair_count
from lm_workbench.engine.preference.logprobs import model_logprobs
from lm_workbench.engine.preference.reference import DisabledAdapter, FrozenCopy, make_reference
from tests.support.preference_reference import hand_ids, hand_logprob

PAIRS = [PreferencePair("What colour is snow?", "Snow is white.", "Snow is Paris, I think."),
         PreferencePair("Name the opposite of hot.", "The opposite of hot is cold.", "Warm."),
         PreferencePair("What comes after 3?", "4", "After 3 comes 7.")]


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    torch.set_num_threads(1)
    folder = tiny_models["gpt2"]
    return folder, load_task_tokenizer(folder)


def test_labels_cover_the_answer_tokens_only(gpt2):
    folder, tokenizer = gpt2
    encoded = encode_pairs(tokenizer, resolve_template(tokenizer, "plain"), PAIRS, 64)
    assert [p.index for p in encoded.pairs] == [0, 1, 2] and not encoded.skipped
    for item in encoded.pairs:
        pair = PAIRS[item.index]
        for side, answer in ((item.chosen, pair.chosen), (item.rejected, pair.rejected)):
            prompt_ids, answer_ids = hand_ids(tokenizer, pair.prompt, answer)
            assert side.input_ids == prompt_ids + answer_ids
            assert side.labels == [IGNORE_INDEX] * len(prompt_ids) + answer_ids
    batch = collate_pairs(encoded.pairs, tokenizer.eos_token_id)
    assert pair_count(batch) == 3 and batch.labels.shape[0] == 6  # chosen rows, then rejected rows
    # padding: attention 0 and label -100 after each row's own tokens
    lengths = [len(p.chosen.input_ids) for p in encoded.pairs] + [len(p.rejected.input_ids) for p in encoded.pairs]
    for row, n in enumerate(lengths):
        assert batch.inputs["attention_mask"][row].tolist() == [1] * n + [0] * (batch.labels.shape[1] - n)
        assert (batch.labels[row, n:] == IGNORE_INDEX).all()


def test_sequence_log_probability_sums_the_answer_tokens_only(gpt2):
    folder, tokenizer = gpt2
    model = build_task_model(folder, "preference").eval()
    encoded = encode_pairs(tokenizer, resolve_template(tokenizer, "plain"), PAIRS, 64)
    batch = collate_pairs(encoded.pairs, tokenizer.eos_token_id)
    with torch.no_grad():
        found = model_logprobs(model, batch.inputs, batch.labels, encoder_decoder=False)
    expected = []
    for side in ("chosen", "rejected"):
        for pair in PAIRS:
            expected.append(hand_logprob(model, *hand_ids(tokenizer, pair.prompt, getattr(pair, side))))
    assert found.tolist() == pytest.approx(expected, abs=1e-4)
    # the prompt's tokens count for nothing: the whole row's log-probability is lower than the answer's
    for k, pair in enumerate(PAIRS):
        prompt_ids, answer_ids = hand_ids(tokenizer, pair.prompt, pair.chosen)
        whole = hand_logprob(model, prompt_ids[:1], prompt_ids[1:] + answer_ids)
        assert whole < found[k] - 1.0


def test_dpo_loss_matches_its_formula_from_two_models_log_probabilities(gpt2):
    folder, tokenizer = gpt2
    reference = build_task_model(folder, "preference").eval()
    policy = build_task_model(folder, "preference").eval()
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for parameter in policy.parameters():
            parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
    encoded = encode_pairs(tokenizer, resolve_template(tokenizer, "plain"), PAIRS, 64)
    batch = collate_pairs(encoded.pairs, tokenizer.eos_token_id)
    beta = 0.3
    with torch.no_grad():
        pol = model_logprobs(policy, batch.inputs, batch.labels, encoder_decoder=False)
        ref = model_logprobs(reference, batch.inputs, batch.labels, encoder_decoder=False)
    terms = dpo_terms(pol[:3], pol[3:], ref[:3], ref[3:], beta)
    for k, pair in enumerate(PAIRS):
        chosen_ids = hand_ids(tokenizer, pair.prompt, pair.chosen)
        rejected_ids = hand_ids(tokenizer, pair.prompt, pair.rejected)
        chosen_ratio = hand_logprob(policy, *chosen_ids) - hand_logprob(reference, *chosen_ids)
        rejected_ratio = hand_logprob(policy, *rejected_ids) - hand_logprob(reference, *rejected_ids)
        z = beta * (chosen_ratio - rejected_ratio)
        loss = -math.log(1.0 / (1.0 + math.exp(-z)))  # -log σ(z)
        assert float(terms.losses[k]) == pytest.approx(loss, abs=1e-5)
        assert float(terms.margins[k]) == pytest.approx(z, abs=1e-5)
        assert float(terms.chosen_rewards[k]) == pytest.approx(beta * chosen_ratio, abs=1e-5)
    metrics = terms.metrics()
    assert metrics["preference_accuracy"] == pytest.approx(sum(float(m) > 0 for m in terms.margins) / 3)
    assert metrics["reward_margin"] == pytest.approx(float(terms.margins.mean()))
    # the same model as policy and reference: every margin 0, the loss log 2
    same = dpo_terms(ref[:3], ref[3:], ref[:3], ref[3:], beta)
    assert same.losses.tolist() == pytest.approx([math.log(2)] * 3) and same.metrics()["preference_accuracy"] == 0


def test_lora_reference_is_the_disabled_adapter_and_full_a_frozen_copy(gpt2):
    from lm_workbench.finetune.methods import finetune_method

    folder, tokenizer = gpt2
    encoded = encode_pairs(tokenizer, resolve_template(tokenizer, "plain"), PAIRS, 64)
    batch = collate_pairs(encoded.pairs, tokenizer.eos_token_id)
    base = build_task_model(folder, "preference").eval()
    with torch.no_grad():
        base_logps = model_logprobs(base, batch.inputs, batch.labels, encoder_decoder=False)
    lora = finetune_method("lora")
    model = lora.apply(build_task_model(folder, "preference"), lora.default_config(), "preference").train()
    with torch.no_grad():  # a trained adapter: B no longer zero, so the policy differs from the base
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.fill_(0.05)
    reference = make_reference(model)
    assert isinstance(reference, DisabledAdapter) and reference.model is model  # no second copy
    assert reference.logprobs(batch.inputs, batch.labels, False).tolist() == pytest.approx(base_logps.tolist(), abs=1e-5)
    assert model.training  # the reference's eval mode is given back to the training model
    with torch.no_grad():
        policy = model_logprobs(model.eval(), batch.inputs, batch.labels, encoder_decoder=False)
    assert (policy - base_logps).abs().max() > 1e-3
    full = finetune_method("full")
    model = full.apply(build_task_model(folder, "preference"), full.default_config(), "preference")
    reference = make_reference(model)
    assert isinstance(reference, FrozenCopy) and reference.model is not model
    assert not any(p.requires_grad for p in reference.model.parameters())
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.05)
    assert reference.logprobs(batch.inputs, batch.labels, False).tolist() == pytest.approx(base_logps.tolist(), abs=1e-5)


def test_reader_skips_and_counts_identical_and_incomplete_pairs(tmp_path):
    rows = [
        {"prompt": "Say hi.", "chosen": "Hi!", "rejected": "No."},
        {"prompt": "Say hi.", "chosen": "Hi!", "rejected": "Hi!"},  # nothing to prefer
        {"prompt": "Say hi.", "chosen": "Hi!"},  # no rejected
        {"chosen": "Hi!", "rejected": "No."},  # no prompt
        {"prompt": [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Say hi."}],
         "chosen": [{"role": "assistant", "content": "Hello!"}], "rejected": "Go away.", "category": "greeting"},
        {"chosen": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}],
         "rejected": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "5"}]},
        {"prompt": [{"role": "robot", "content": "beep"}], "chosen": "a", "rejected": "b"},  # unknown role
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pairs = read_preference(path)
    report = pairs.report
    assert report.rows_read == 3 and report.rows_skipped == 4
    assert [(s.line, s.reason) for s in sorted(report.skipped, key=lambda s: s.line)] == [
        (2, "chosen equals rejected"), (3, "no 'rejected'"), (4, "no 'prompt'"),
        (7, "prompt: unknown role 'robot' (roles: system, user, assistant)")]
    assert any("1 pair skipped because the chosen answer equals the rejected one" in n for n in report.notes)
    assert pairs[1].prompt == (("system", "Be kind."), ("user", "Say hi.")) and pairs[1].chosen == "Hello!"
    assert pairs[1].category == "greeting" and pairs[1].prompt_text == "Say hi."
    assert pairs[2].prompt == (("user", "2+2?"),) and (pairs[2].chosen, pairs[2].rejected) == ("4", "5")

"""Preference tuning (DPO) of encoder-decoders (tiny random BART and T5): the answer's log-probability against a
plain forward pass written here, the DPO loss against its formula, LoRA's reference against the base, and a short
recorded CLI run recomputed from its saved model."""

from __future__ import annotations

import io
import json
import math
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest
import torch

from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer
from lm_workbench.engine.preference.data import PreferencePair
from lm_workbench.engine.preference.dpo import dpo_terms
from lm_workbench.engine.preference.encoding import PROMPT_AS_IS, collate_pairs, encode_pairs
from lm_workbench.engine.preference.logprobs import model_logprobs
from lm_workbench.engine.preference.reference import DisabledAdapter, disable_dropout, make_reference
from tests.support.preference_reference import course_subset, dpo_by_hand, read_pairs

# two pairs of different lengths: the batch pads the shorter prompt and the shorter answers
PAIRS = [PreferencePair("What colour is snow?", "Snow is white.", "Snow is Paris, I think, or green."),
         PreferencePair("Name the opposite of hot, please, in one short sentence.", "Cold.", "It is warm.")]
BETA = 0.1


@pytest.fixture(autouse=True)
def one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def by_hand(model, tokenizer, prompt: str, answer: str) -> float:
    """log π(answer | prompt) of one unpadded row: the prompt as the encoder's input (the tokenizer's special
    tokens), the decoder fed [decoder start] + answer[:-1], log_softmax, the answer's tokens picked and summed."""
    source = tokenizer(prompt)["input_ids"]
    target = tokenizer(text_target=answer)["input_ids"]
    decoder = [model.config.decoder_start_token_id] + target[:-1]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([source]), attention_mask=torch.ones(1, len(source), dtype=torch.long),
                       decoder_input_ids=torch.tensor([decoder])).logits[0].double()
    logp = torch.log_softmax(logits, dim=-1)
    return float(sum(logp[t, token] for t, token in enumerate(target)))


def batch_of(tokenizer, pairs=PAIRS):
    encoded = encode_pairs(tokenizer, PROMPT_AS_IS, pairs, 64, encoder_decoder=True)
    assert not encoded.skipped
    return encoded, collate_pairs(encoded.pairs, tokenizer.pad_token_id)


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_answer_log_probability_is_a_plain_teacher_forced_forward(kind, tiny_models):
    folder = tiny_models[kind]
    tokenizer = load_task_tokenizer(folder)
    model = build_task_model(folder, "preference").eval()
    assert model.config.is_encoder_decoder and type(model).__name__.endswith("ForConditionalGeneration")
    encoded, batch = batch_of(tokenizer)
    for item in encoded.pairs:  # the prompt goes to the encoder as is; the answer is the decoder's target
        pair = PAIRS[item.index]
        assert item.chosen.input_ids == tokenizer(pair.prompt)["input_ids"] == item.rejected.input_ids
        assert item.chosen.labels == tokenizer(text_target=pair.chosen)["input_ids"]
    mask, labels = batch.inputs["attention_mask"], batch.labels
    assert mask.sum(1).unique().numel() == 2 and (mask == 0).any()  # encoder padding in the batch
    assert (labels == -100).sum(1).unique().numel() > 1  # answers of different lengths: decoder padding
    with torch.no_grad():
        found = model_logprobs(model, batch.inputs, batch.labels, encoder_decoder=True)
    expected = [by_hand(model, tokenizer, p.prompt, p.chosen) for p in PAIRS] + \
               [by_hand(model, tokenizer, p.prompt, p.rejected) for p in PAIRS]
    assert found.tolist() == pytest.approx(expected, abs=1e-4)
    assert all(v < -1.0 for v in expected)  # a random model: several nats per answer, not a vacuous 0


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_dpo_loss_is_log_2_at_step_0_and_its_formula_from_two_models(kind, tiny_models):
    from lm_workbench.finetune.methods import finetune_method

    folder = tiny_models[kind]
    tokenizer = load_task_tokenizer(folder)
    _, batch = batch_of(tokenizer)
    n = len(PAIRS)
    # step 0: the policy (training mode, dropout switched off as the run does) is its frozen copy
    full = finetune_method("full")
    policy = full.apply(build_task_model(folder, "preference"), full.default_config(), "preference").train()
    assert disable_dropout(policy) > 0
    reference = make_reference(policy)
    ref = reference.logprobs(batch.inputs, batch.labels, True)
    with torch.no_grad():  # as the run's step-0 evaluation scores it
        pol = model_logprobs(policy, batch.inputs, batch.labels, encoder_decoder=True)
    terms = dpo_terms(pol[:n], pol[n:], ref[:n], ref[n:], BETA)
    assert terms.margins.tolist() == [0.0] * n
    assert terms.losses.tolist() == pytest.approx([math.log(2)] * n, abs=1e-7)  # log 2 in float32
    assert terms.metrics()["preference_accuracy"] == 0.0
    # the first step's loss, with gradients (attention may then take another kernel: the last digits differ)
    pol = model_logprobs(policy, batch.inputs, batch.labels, encoder_decoder=True)
    loss = dpo_terms(pol[:n], pol[n:], ref[:n], ref[n:], BETA).losses.mean()
    assert float(loss.detach()) == pytest.approx(math.log(2), abs=1e-6) and loss.requires_grad
    # a moved policy against the base: -log σ(β[(π_w − ref_w) − (π_l − ref_l)]) from the hand log-probabilities
    base = build_task_model(folder, "preference").eval()
    moved = build_task_model(folder, "preference").eval()
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for parameter in moved.parameters():
            parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
        pol = model_logprobs(moved, batch.inputs, batch.labels, encoder_decoder=True)
        ref = model_logprobs(base, batch.inputs, batch.labels, encoder_decoder=True)
    terms = dpo_terms(pol[:n], pol[n:], ref[:n], ref[n:], BETA)
    for k, pair in enumerate(PAIRS):
        chosen = by_hand(moved, tokenizer, pair.prompt, pair.chosen) - by_hand(base, tokenizer, pair.prompt, pair.chosen)
        rejected = (by_hand(moved, tokenizer, pair.prompt, pair.rejected)
                    - by_hand(base, tokenizer, pair.prompt, pair.rejected))
        z = BETA * (chosen - rejected)
        assert abs(z) > 1e-3  # the copies differ
        assert float(terms.losses[k]) == pytest.approx(-math.log(1.0 / (1.0 + math.exp(-z))), abs=2e-5)
        assert float(terms.margins[k]) == pytest.approx(z, abs=2e-5)


def test_bart_dropout_is_switched_off_in_training_mode(tiny_models):
    """BART passes float probabilities to F.dropout (no nn.Dropout modules): they too must be 0."""
    model = build_task_model(tiny_models["bart"], "preference").train()
    assert model.config.dropout > 0
    disable_dropout(model)
    tokenizer = load_task_tokenizer(tiny_models["bart"])
    _, batch = batch_of(tokenizer)
    with torch.no_grad():
        once = model_logprobs(model, batch.inputs, batch.labels, encoder_decoder=True)
        again = model_logprobs(model, batch.inputs, batch.labels, encoder_decoder=True)
    assert torch.equal(once, again)


def test_lora_on_t5_is_a_seq2seq_adapter_whose_reference_is_the_base(tiny_models):
    from lm_workbench.finetune.methods import finetune_method

    folder = tiny_models["t5"]
    tokenizer = load_task_tokenizer(folder)
    _, batch = batch_of(tokenizer)
    base = build_task_model(folder, "preference").eval()
    decoder = {"decoder_input_ids": torch.tensor([[0, 5, 6, 7, 8]] * 4),
               "decoder_attention_mask": torch.ones(4, 5, dtype=torch.long)}
    with torch.no_grad():
        base_logits = base(**batch.inputs, **decoder).logits
        base_logps = model_logprobs(base, batch.inputs, batch.labels, encoder_decoder=True)
    lora = finetune_method("lora")
    model = lora.apply(build_task_model(folder, "preference"), lora.default_config(), "preference").train()
    assert type(model).__name__ == "PeftModelForSeq2SeqLM"
    assert str(model.peft_config["default"].task_type).endswith("SEQ_2_SEQ_LM")
    with torch.no_grad():  # a trained adapter: B no longer zero
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.fill_(0.05)
    reference = make_reference(model)
    assert isinstance(reference, DisabledAdapter) and reference.model is model
    with torch.no_grad(), model.disable_adapter():
        assert torch.allclose(model.eval()(**batch.inputs, **decoder).logits, base_logits, atol=1e-6)
        assert not model(**batch.inputs, **decoder).logits.isnan().any()
    model.train()
    assert reference.logprobs(batch.inputs, batch.labels, True).tolist() == pytest.approx(base_logps.tolist(),
                                                                                          abs=1e-5)
    assert model.training
    with torch.no_grad():
        assert (model.eval()(**batch.inputs, **decoder).logits - base_logits).abs().max() > 1e-3


def _cli(argv, home):
    out, err = io.StringIO(), io.StringIO()
    previous = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(home))
        with redirect_stdout(out), redirect_stderr(err):
            code = main_cli(argv)
    torch.set_num_threads(previous)
    return code, out.getvalue(), err.getvalue()


def main_cli(argv):
    from lm_workbench.cli.main import main

    return main(argv)


@pytest.fixture(scope="module")
def bart_run(tmp_path_factory, tiny_models):
    """(printed JSON, output folder, home, training file, held-out file): a recorded full DPO run of the tiny
    BART on the course pairs' capital and colour categories (160 + 20 pairs, 2 epochs = 20 steps)."""
    root = tmp_path_factory.mktemp("preference-bart")
    train, validation = course_subset(root, ("capital", "colour"))
    out = root / "out"
    code, printed, err = _cli(
        ["finetune", str(tiny_models["bart"]), "--task", "preference", "--train", str(train), "--validation",
         str(validation), "--method", "full", "--lr", "8e-3", "--beta", str(BETA), "--epochs", "2",
         "--batch-size", "16", "--max-length", "64", "--train-setting", "threads=1", "--out", str(out), "--json"],
        root / "home")
    assert code == 0, err
    return json.loads(printed), out, root / "home", train, validation


def test_a_cli_run_on_bart_learns_the_pairs_and_says_it_has_no_template(bart_run):
    printed, out, *_ = bart_run
    assert printed["task"] == "preference" and printed["reference"] == "frozen-copy"
    assert printed["template"]["source"] == "none" and "encoder as is" in printed["template"]["note"]
    assert any("encoder as is" in note for note in printed["data"]["train"]["notes"])
    manifest = json.loads((out / "finetune.json").read_text(encoding="utf-8"))
    assert manifest["chat_template"]["source"] == "none"
    # step 0: the policy is the reference (dropout off): every margin 0, loss log 2
    step, first = printed["history"][0]
    assert step == 0 and first["reward_margin"] == 0.0 and first["preference_accuracy"] == 0.0
    assert first["validation_loss"] == pytest.approx(math.log(2), abs=1e-6)
    assert printed["first_loss"] == pytest.approx(math.log(2), abs=1e-5)
    # measured (tiny BART, 20 steps): training pairs loss 0.693 -> 0.41, reward accuracy 0 -> 0.94; held-out
    # log-prob margin 0.95 -> 9.2, own choice 45% -> 80%. Thresholds leave room for another CPU's rounding.
    assert printed["train"]["loss"] < 0.6 and printed["train"]["preference_accuracy"] >= 0.8
    assert printed["after"]["logp_margin"] > printed["before"]["logp_margin"] + 2.0
    assert printed["after"]["preference_accuracy"] > printed["before"]["preference_accuracy"]


def test_the_saved_bart_reopens_and_its_metrics_are_the_formula_by_hand(bart_run, tiny_models):
    from lm_workbench.finetune.train import open_output

    printed, out, home, train, validation = bart_run
    tuned = open_output(out)  # as a seq2seq run's output: the base rebuilt, the method's weights loaded
    assert tuned.model.config.is_encoder_decoder and tuned.task == "preference"
    tokenizer = load_task_tokenizer(tiny_models["bart"])
    base = build_task_model(tiny_models["bart"], "preference").eval()
    pairs = read_pairs(validation)
    after = [(by_hand(tuned.model, tokenizer, p["prompt"], p["chosen"]),
              by_hand(tuned.model, tokenizer, p["prompt"], p["rejected"])) for p in pairs]
    before = [(by_hand(base, tokenizer, p["prompt"], p["chosen"]),
               by_hand(base, tokenizer, p["prompt"], p["rejected"])) for p in pairs]
    assert printed["validation"] == pytest.approx(dpo_by_hand(after, before, BETA), abs=2e-4)
    assert printed["after"]["logp_margin"] == pytest.approx(sum(c - r for c, r in after) / len(after), abs=2e-4)
    assert printed["before"]["preference_accuracy"] == pytest.approx(sum(c > r for c, r in before) / len(before))
    # predict answers as a sequence-to-sequence run's model: the prompt to the encoder, greedy decoding
    code, text, err = _cli(["predict", str(out), "--text", "What colour is snow?", "--json"], home)
    assert code == 0, err
    found = json.loads(text)
    assert found["task"] == "preference" and found["template"] == "none"
    model = tuned.model
    source = torch.tensor([tokenizer("What colour is snow?")["input_ids"]])
    new = [model.config.decoder_start_token_id]
    with torch.no_grad():  # greedy by hand, up to the run's max length of new tokens or the end token
        while len(new) <= 64:
            token = int(model(input_ids=source, decoder_input_ids=torch.tensor([new])).logits[0, -1].argmax())
            new.append(token)
            if token == tokenizer.eos_token_id:
                break
    assert found["text"] == tokenizer.decode(new[1:], skip_special_tokens=True).strip()



def test_the_fine_tune_tab_takes_a_bart_for_preference_and_shows_its_run(bart_run, open_window, qtbot, tiny_models,
                                                                         monkeypatch):
    """The tab with a BART loaded: the preference task counts the parameters (it refused an encoder-decoder
    before), the recorded run's curves and before/after lines show, the layer comparison runs on it and the
    tuned model opens as a model, as a sequence-to-sequence run's does."""
    from pathlib import Path

    from transformers import AutoModelForSeq2SeqLM

    from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views
    from lm_workbench.finetune.state import read_result
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore
    from lm_workbench.store.metrics_reader import MetricsReader

    printed, out, home, train, validation = bart_run
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(home))
    window = open_window(str(tiny_models["bart"]), "finetune",
                         registry=ViewRegistry([builtin_views().get("finetune")]), size=(1280, 860), about=False)
    view = window.view("finetune")
    form = view.form
    form.task_combo.setCurrentIndex(form.task_combo.findData("preference"))
    form.method_combo.setCurrentIndex(form.method_combo.findData("full"))
    assert form.beta_spin.isVisibleTo(form)
    qtbot.waitUntil(lambda: "counting" not in form.params_label.text()
                    and form.params_label.text().startswith(("Trainable parameters: ", "Cannot")), timeout=60000)
    total = sum(p.numel() for p in AutoModelForSeq2SeqLM.from_pretrained(tiny_models["bart"]).parameters())
    assert f"{total:,} of {total:,}" in form.params_label.text(), form.params_label.text()
    spec = view.state.spec(str(tiny_models["bart"]), "out")
    assert (spec.task, spec.method) == ("preference", "full")

    run_id = printed["run_id"]
    view.curves.clear("preference")
    view.curves.add_run(run_id, "full")
    reader = MetricsReader(runs_db_path())
    try:
        view.curves.add_rows(run_id, reader.rows_after(run_id))
    finally:
        reader.close()
    with RunStore(runs_db_path()) as store:
        rows = store.metrics(run_id, "validation_reward_margin")
    assert rows and view.curves.data(run_id, "validation_reward_margin") == ([r["step"] for r in rows],
                                                                              [r["value"] for r in rows])
    assert view.curves.plots["margin"].isVisible()
    result = read_result(run_id, "full", out)
    view.state.add_result(result)
    view.results.show_result(result)
    before, after = printed["before"]["preference_accuracy"], printed["after"]["preference_accuracy"]
    assert f"preferred {100 * before:.0f}% before → {100 * after:.0f}% after" in view.results.preference_note.text()
    assert len(view.results.rows()) == 20
    shot = os.environ.get("DPO_SEQ2SEQ_SHOT")  # screenshots for a person to look at (not part of the check)
    if shot:
        view.form_button.setChecked(False)
        view.tabs.setCurrentIndex(0)
        qtbot.wait(200)
        window.grab().save(f"{shot}-training.png")
    view.compare_layers()  # before/after per layer: the base BART against the reopened tuned one
    qtbot.waitUntil(lambda: view.state.shift_run_id == run_id or bool(view.message_bar.text()), timeout=60000)
    assert not view.message_bar.text() and view.state.shift and "moved most" in view.shift_label.text()
    if shot:
        view.tabs.setCurrentIndex(2)
        qtbot.wait(200)
        window.grab().save(f"{shot}-before-after.png")
    view.open_tuned()  # a full run's model folder opens as the loaded model
    qtbot.waitUntil(lambda: window.loaded is not None and Path(window.loaded.info.folder) == out / "adapter",
                    timeout=60000)
    assert window.loaded.model.config.is_encoder_decoder


def test_an_encoder_decoder_uses_no_template_and_says_a_chosen_one_is_unused(tiny_models):
    from lm_workbench.finetune.preference_start import StartingPoint, run_template

    tokenizer = load_task_tokenizer(tiny_models["t5"])
    start = StartingPoint(tiny_models["t5"])
    assert run_template(start, tokenizer, "auto", encoder_decoder=True).source == "none"
    chosen = run_template(start, tokenizer, "plain", encoder_decoder=True)
    assert chosen.source == "none" and "--template plain is not used" in chosen.note
    assert run_template(start, tokenizer, "plain", encoder_decoder=False).source == "plain"
    conversation = PreferencePair((("system", "Be brief."), ("user", "Hi?")), "Hello.", "Go away.")
    encoded, _ = batch_of(tokenizer, [conversation])
    assert encoded.pairs[0].chosen.input_ids == tokenizer("Be brief.\n\nHi?")["input_ids"]


def test_dpo_after_an_instruct_bart_run_reads_prompts_through_its_template(bart_run, tmp_path, tiny_models):
    """Started from an instruct LoRA run of BART (plain template): merged into OUT/start, and the encoder reads
    each prompt as instruction tuning wrote it (the plain template written out here)."""
    from lm_workbench.engine.finetune.demo import demo_path

    printed, out, home, train, validation = bart_run
    records = demo_path("instruct").read_text(encoding="utf-8").splitlines()[:8]
    instruct_data = tmp_path / "instruct.jsonl"
    instruct_data.write_text("\n".join(records) + "\n", encoding="utf-8")
    pairs = read_pairs(validation)[:6]
    pair_file = tmp_path / "pairs.jsonl"
    pair_file.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    code, _, err = _cli(["finetune", str(tiny_models["bart"]), "--task", "instruct", "--train", str(instruct_data),
                         "--validation", str(instruct_data), "--method", "lora", "--epochs", "1", "--batch-size", "8",
                         "--max-length", "64", "--template", "plain", "--train-setting", "threads=1",
                         "--out", str(tmp_path / "instruct"), "--json"], home)
    assert code == 0, err
    code, text, err = _cli(["finetune", str(tmp_path / "instruct"), "--task", "preference", "--train", str(pair_file),
                            "--validation", str(pair_file), "--method", "full", "--epochs", "1", "--batch-size", "8",
                            "--max-length", "64", "--train-setting", "threads=1", "--out", str(tmp_path / "dpo"),
                            "--json"], home)
    assert code == 0, err
    summary = json.loads(text)
    assert summary["template"]["source"] == "plain" and "used again" in summary["template"]["note"]
    start = tmp_path / "dpo" / "start" / "adapter"
    assert summary["base_model"] == str(start)
    merged = build_task_model(start, "preference").eval()  # the instruct run folded into BART: "before"
    tokenizer = load_task_tokenizer(tiny_models["bart"])
    written = [f"### Instruction:\n{p['prompt']}\n\n### Response:\n" for p in pairs]
    margins = [by_hand(merged, tokenizer, w, p["chosen"]) - by_hand(merged, tokenizer, w, p["rejected"])
               for w, p in zip(written, pairs)]
    assert summary["before"]["logp_margin"] == pytest.approx(sum(margins) / len(margins), abs=2e-4)
    code, text, err = _cli(["predict", str(tmp_path / "dpo"), "--text", pairs[0]["prompt"], "--json"], home)
    assert code == 0 and json.loads(text)["template"] == "plain", err

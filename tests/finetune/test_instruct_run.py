"""``finetune --task instruct`` end to end: one short CPU run of a tiny GPT-2 on the course's copying categories.

The model: a random 2-layer, 64-wide GPT-2 on the test fixture's tokenizer. Training: the shipped course data's
"first", "plural", "repeat" and "reverse" demonstrations (400), plus two bad records and one whose prompt is longer
than the window. Held out: those categories of the shipped held-out file (32 new prompts). Measured on this
machine (seed 0, full fine-tuning, lr 3e-3, constant schedule, batch 32, 24 epochs = 312 steps, 45 s of training
at a load average near 20 on 2 cores): held-out exact match 0 before and 0.47 after (first 0.88, plural 0.75,
repeat 0.13, reverse 0.13), ROUGE-L 0 -> 0.64; after 16 epochs it was still 0.09. The test asks for a rise of at
least ``RISE``. The token counts are checked
against the template's literal text tokenized here; the exact match against the rows' answers normalized here.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest
import torch

from lm_workbench.engine.instruct.course_data import WORDS, course_records
from lm_workbench.cli.main import main

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]  # a real training run (about 30 s on 2 busy cores)
WINDOW = 64
RISE = 0.25


def _cli(argv):
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = main(argv)
    assert code == 0
    return buffer.getvalue()


@pytest.fixture(scope="module")
def first_word_run(tmp_path_factory, tiny_models):
    import transformers as tf

    root = tmp_path_factory.mktemp("instruct-run")
    tokenizer = tf.AutoTokenizer.from_pretrained(tiny_models["gpt2"])
    torch.manual_seed(0)
    config = tf.GPT2Config(n_embd=64, n_layer=2, n_head=4, n_positions=WINDOW, vocab_size=len(tokenizer),
                           bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    model_dir = root / "gpt2-64"
    tf.GPT2LMHeadModel(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)

    copying = ("first", "plural", "repeat", "reverse")
    train = [r for r in course_records("train") if r["category"] in copying]
    long_record = {"instruction": "first word: " + " ".join(WORDS * 2), "output": WORDS[0], "category": "first"}
    bad = [{"instruction": "first word: cat dog sun"},  # no output
           {"messages": [{"role": "user", "content": "hi"}, {"role": "robot", "content": "beep"}]}]
    held = [r for r in course_records("heldout") if r["category"] in copying]
    assert not {r["instruction"] for r in held} & {r["instruction"] for r in train}
    train_file, held_file = root / "train.jsonl", root / "heldout.jsonl"
    train_file.write_text("".join(json.dumps(r) + "\n" for r in train + [long_record] + bad), encoding="utf-8")
    held_file.write_text("".join(json.dumps(r) + "\n" for r in held), encoding="utf-8")
    out = root / "out"
    previous = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(root / "home"))
        printed = json.loads(_cli([
            "finetune", str(model_dir), "--task", "instruct", "--train", str(train_file), "--validation",
            str(held_file), "--method", "full", "--lr", "3e-3", "--epochs", "24", "--batch-size", "32",
            "--max-length", str(WINDOW), "--template", "auto", "--train-setting", "threads=1",
            "--train-setting", "eval_every=0", "--train-setting", "schedule=constant", "--train-setting",
            "warmup_steps=0", "--out", str(out), "--json"]))
        chat = json.loads(_cli(["generate", str(out), "--chat", "--text", held[0]["instruction"], "--max-new-tokens",
                                "64", "--json"]))
        predicted = json.loads(_cli(["predict", str(out), "--text", held[0]["instruction"], "--json"]))
    torch.set_num_threads(previous)
    return printed, tokenizer, train + [long_record], held, out, chat, predicted


def _tokens(tokenizer, text):
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def test_instruct_json_counts_the_answer_tokens_of_one_pass(first_word_run):
    printed, tokenizer, kept, _, _, _, _ = first_word_run
    assert list(printed)[:4] == ["run_id", "trainable_parameters", "total_parameters", "validation"]
    trained = total = 0
    for record in kept:  # the plain template's text, written out here
        answer = _tokens(tokenizer, f"{record['output']}<|endoftext|>")
        prompt = _tokens(tokenizer, f"### Instruction:\n{record['instruction']}\n\n### Response:\n")
        trained += answer
        total += min(WINDOW, prompt + answer)  # the long prompt is cut from its left to fit the window
    assert printed["trained_tokens"] == trained and printed["total_tokens"] == total
    assert printed["prompts_truncated"] == 1 and printed["answers_truncated"] == 0
    assert printed["rows_skipped"] == 2  # no output, an unknown role: skipped and counted
    assert set(printed["validation"]) == {"loss", "exact_match", "rougeL"}
    assert {k: v["count"] for k, v in printed["validation_categories"].items()} == dict.fromkeys(
        ("first", "plural", "repeat", "reverse"), 8)
    assert "no chat template" in printed["chat_template"]["note"]  # --template auto fell back to plain


def test_held_out_exact_match_rises_after_a_short_run(first_word_run):
    printed, _, _, held, _, _, _ = first_word_run
    table = printed["before_after"]
    rows = table["rows"]
    assert [r["prompt"] for r in rows] == [r["instruction"] for r in held]

    def em(key):  # exact match recomputed from the answers shown
        return sum(r[key].strip().lower() == r["reference"].lower() for r in rows) / len(rows)

    assert table["before"]["exact_match"] == pytest.approx(em("before_greedy"))
    assert table["after"]["exact_match"] == pytest.approx(em("after_greedy"))
    assert table["after"]["exact_match"] >= table["before"]["exact_match"] + RISE
    assert printed["validation"]["exact_match"] == pytest.approx(em("after_greedy"))
    assert all(isinstance(r["before_sampled"], str) and isinstance(r["after_sampled"], str) for r in rows)


def test_the_run_keeps_its_template_and_answers_through_it(first_word_run):
    printed, _, _, held, out, chat, predicted = first_word_run
    manifest = json.loads((out / "finetune.json").read_text(encoding="utf-8"))
    assert manifest["task"] == "instruct" and manifest["chat_template"]["source"] == "plain"
    assert chat["source"] == "instruct run" and chat["prompt"].endswith("### Response:\n")
    assert predicted["answer"] == chat["text"]  # both: the run's model and template, greedy, one prompt

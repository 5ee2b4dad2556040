"""Prompt evaluation over 1,000 labelled examples: the engine's batched scoring vs one forward per answer.

Two settings, each on a model built from a config (random weights: the timing does not depend on what
the weights encode; tokenizers as in tests/support/tiny_models.py), same threads, same examples (``--n`` real
English sentences from ``_common.prose_sentences``, labels alternating):

  cloze   a BERT (``--layers`` x ``--hidden``) with the template "[x] It [z] good." and the verbalizer
          pos=is,the;neg=was,not (single-token answers). engine: ``evaluate_prompts``, one forward per
          example for all four answers. per-answer: the masked prompt run once for each answer.
  prefix  a GPT-2 of the same size with "[x] Overall, this movie is [z]" and pos=great,good;neg=terrible,bad
          (multi-token answers). engine: the prompt once, its key/value cache shared by one batched pass
          over every answer's continuation. per-answer: a full forward of prompt + answer for each answer.

Both compute the same label probabilities (the largest difference is printed). Goal (reported, never
asserted): per-answer / engine >= 3.

    python tests/bench/bench_prompting.py [--n 1000] [--layers 4] [--hidden 256] [--threads 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402

GOAL = 3.0
WINDOW = 512
SETTINGS = {
    "cloze": ("bert", "[x] It [z] good.", "pos=is,the;neg=was,not"),
    "prefix": ("gpt2", "[x] Overall, this movie is [z]", "pos=great,good;neg=terrible,bad"),
}


def build_model(kind: str, folder: Path, layers: int, hidden: int) -> Path:
    import torch
    import transformers as tf

    from tests.support.tiny_models import _bpe_tokenizer, _wordpiece_tokenizer

    torch.manual_seed(0)
    tokenizer = _wordpiece_tokenizer() if kind == "bert" else _bpe_tokenizer(kind)
    tokenizer.model_max_length = WINDOW
    heads = max(1, hidden // 64)
    if kind == "bert":
        config = tf.BertConfig(vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers,
                               num_attention_heads=heads, intermediate_size=4 * hidden,
                               max_position_embeddings=WINDOW, pad_token_id=tokenizer.pad_token_id)
        model = tf.BertForMaskedLM(config)
    else:
        config = tf.GPT2Config(vocab_size=len(tokenizer), n_embd=hidden, n_layer=layers, n_head=heads,
                               n_positions=WINDOW, bos_token_id=tokenizer.eos_token_id,
                               eos_token_id=tokenizer.eos_token_id)
        model = tf.GPT2LMHeadModel(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def data_file(folder: Path, n: int) -> Path:
    path = folder / "examples.tsv"
    rows = [f"{' '.join(s.split())}\t{'pos' if i % 2 == 0 else 'neg'}" for i, s in enumerate(prose_sentences(n))]
    path.write_text("sentence\tlabel\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def engine_probs(loaded, data, template, verbalizer):
    from lm_workbench.engine.prompting.evaluate import PromptChoice, evaluate_prompts
    from lm_workbench.engine.progress import run_to_completion

    result = run_to_completion(evaluate_prompts(loaded, data, [PromptChoice(template, verbalizer)]))
    return result.prompts[0].probs


def per_answer_probs(loaded, data, template, verbalizer):
    """Each answer scored with its own forward pass: the masked prompt (cloze) or prompt + answer (prefix)."""
    import torch

    from lm_workbench.engine.prompting.scoring import decoder_prompt_ids
    from lm_workbench.engine.prompting.verbalizer import answer_token_ids, split_space

    tok, model = loaded.tokenizer, loaded.model
    out = []
    with torch.inference_mode():
        for example in data.examples:
            before, after = template.split(example.text)
            label_scores = []
            for label, words in verbalizer.answers:
                scores = []
                for word in words:
                    if template.mode == "cloze":
                        context, space = split_space(before)
                        ids = tok(context + space + tok.mask_token + after)["input_ids"]
                        slot = ids.index(tok.mask_token_id)
                        logits = model(input_ids=torch.tensor([ids])).logits[0, slot]
                        answer = answer_token_ids(tok, before, word)
                        scores.append(float(torch.log_softmax(logits.float(), -1)[answer[0]]))
                    else:
                        head = decoder_prompt_ids(tok, before)
                        answer = answer_token_ids(tok, before, word)
                        logits = model(input_ids=torch.tensor([head + answer[:-1]])).logits[0]
                        lp = torch.log_softmax(logits.float(), -1)
                        scores.append(sum(float(lp[len(head) - 1 + j, t]) for j, t in enumerate(answer)))
                top = max(scores)
                label_scores.append(top + math.log(sum(math.exp(s - top) for s in scores)))
            top = max(label_scores)
            total = top + math.log(sum(math.exp(s - top) for s in label_scores))
            out.append([math.exp(s - total) for s in label_scores])
    return out


def timed(fn, *args):
    load = OtherLoad()
    load.start()
    start = time.perf_counter()
    value = fn(*args)
    seconds = time.perf_counter() - start
    others = load.stop()
    return value, seconds, others, load.steal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--json")
    args = parser.parse_args()

    import numpy as np
    import torch

    from lm_workbench.engine.data.tasks import read_classification
    from lm_workbench.engine.models.loading import load_source as load_model, quiet_transformers
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    quiet_transformers()
    torch.set_num_threads(args.threads)
    report = {"n": args.n, "layers": args.layers, "hidden": args.hidden, "threads": args.threads, "settings": {}}
    with tempfile.TemporaryDirectory() as tmp:
        data = read_classification(data_file(Path(tmp), args.n))
        for name in args.settings:
            kind, template_text, spec = SETTINGS[name]
            loaded = load_model(str(build_model(kind, Path(tmp) / kind, args.layers, args.hidden)))
            template, verbalizer = Template.parse(template_text, name), Verbalizer.parse(spec)
            engine_probs(loaded, read_classification(data_file(Path(tmp) / kind, 8)), template, verbalizer)  # warm
            fast, t_engine, o1, s1 = timed(engine_probs, loaded, data, template, verbalizer)
            slow, t_naive, o2, s2 = timed(per_answer_probs, loaded, data, template, verbalizer)
            diff = float(np.max(np.abs(np.asarray(fast) - np.asarray(slow))))
            ratio = t_naive / t_engine
            print(f"{name:>6}: engine {t_engine:7.2f} s ({args.n / t_engine:6.1f} ex/s)   per-answer "
                  f"{t_naive:7.2f} s ({args.n / t_naive:6.1f} ex/s)   ratio {ratio:5.2f}x "
                  f"(goal >= {GOAL:g}x: {verdict(ratio >= GOAL)})   max |dp| {diff:.2e}   "
                  f"others {o1}/{o2} CPUs, steal {s1}/{s2}")
            report["settings"][name] = {"model": kind, "template": template_text, "verbalizer": spec,
                                        "engine_s": t_engine, "per_answer_s": t_naive, "ratio": ratio,
                                        "max_prob_diff": diff, "others": [o1, o2], "steal": [s1, s2]}
    write_json(args.json, report | {"environment": environment()})


if __name__ == "__main__":
    main()

"""The views at the real architectures' sizes: random-weight models built from configs, measured one by one.

Each size is built once (random weights, seeded, saved as bfloat16 safetensors with a MiniLM or GPT-2-style
tokenizer) into ``--cache`` and then measured in a fresh process of its own, so one model's memory does not
hide another's: load time, the anonymous memory peak while loading (``RssAnon``: the weights' file pages are
mapped, reclaimable and not counted), the first view (tokens, all attentions, the logit lens for one
sentence), extraction throughput and the lens's extra memory at 128 / 512 / ``--long`` tokens.

    python tests/bench/bench_real_sizes.py --json /tmp/bench/sizes.json             # every size (~20 min, ~8 GB)
    python tests/bench/bench_real_sizes.py --quick                                  # BERT-base and the 48x25 shape
    # options: --sizes bert-base,gpt2-medium,... --cache DIR --precision float32|bfloat16 --long 2048

Not asserted anywhere: it prints a table and writes the numbers; tests/bench/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# name -> (transformers config class, its arguments (the real vocabulary: the lens's memory depends on it),
#          tokenizer: "wordpiece" (MiniLM's) or "bpe" (a small one trained on Python's docs), window in tokens)
SIZES: dict[str, tuple[str, dict, str, int]] = {
    "bert-base": ("BertConfig", {"vocab_size": 30522}, "wordpiece", 512),
    "gpt2-medium": ("GPT2Config", {"n_embd": 1024, "n_layer": 24, "n_head": 16, "vocab_size": 50257}, "bpe", 1024),
    "t5-base": ("T5Config", {"d_model": 768, "d_ff": 3072, "num_layers": 12, "num_heads": 12, "vocab_size": 32128},
                "bpe", 512),
    "bart-base": ("BartConfig", {"vocab_size": 50265}, "bpe", 1024),
    "llama-1.1b": ("LlamaConfig", {"hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
                                   "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
                                   "max_position_embeddings": 2048}, "bpe", 2048),
    "gpt2-xl-shape": ("GPT2Config", {"n_embd": 400, "n_layer": 48, "n_head": 25, "vocab_size": 50257}, "bpe", 1024),
}
QUICK = ("bert-base", "gpt2-xl-shape")
HEADS = {"LlamaForCausalLM", "GPT2LMHeadModel"}


def build(name: str, folder: Path) -> Path:
    """Random weights at ``name``'s size, saved once (bfloat16 safetensors, as hub checkpoints mostly are)."""
    if (folder / "config.json").is_file():
        return folder
    import torch
    import transformers as tf

    from lm_workbench.engine.models.default import default_model_folder
    from tests.support.tiny_models import _bpe_tokenizer

    config_class, kwargs, tokenizer_kind, window = SIZES[name]
    if tokenizer_kind == "wordpiece":
        tokenizer = tf.AutoTokenizer.from_pretrained(default_model_folder())
    else:
        tokenizer = _bpe_tokenizer("gpt2" if "gpt2" in name or "llama" in name else name.split("-")[0])
    tokenizer.model_max_length = window
    special = {"bos_token_id": tokenizer.bos_token_id or tokenizer.eos_token_id, "eos_token_id": tokenizer.eos_token_id,
               "pad_token_id": tokenizer.pad_token_id}
    config = getattr(tf, config_class)(**kwargs, **{k: v for k, v in special.items() if v is not None})
    if config_class == "T5Config":
        config.decoder_start_token_id = tokenizer.pad_token_id or 0
    head = {"BertConfig": tf.BertForMaskedLM, "GPT2Config": tf.GPT2LMHeadModel, "T5Config":
            tf.T5ForConditionalGeneration, "BartConfig": tf.BartForConditionalGeneration,
            "LlamaConfig": tf.LlamaForCausalLM}[config_class]
    torch.manual_seed(0)
    with torch.device("meta"):
        model = head(config)
    model = model.to_empty(device="cpu").to(torch.bfloat16)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    model.tie_weights()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def measure(folder: str, precision: str, long: int) -> dict:
    """In this process (a fresh one per size): load, first view, extraction, lens memory."""
    import threading

    import torch

    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.lens.logit import logit_lens
    from lm_workbench.engine.models.loading import load_source as load_model

    def anon_mib() -> float:
        with open("/proc/self/status", encoding="ascii") as f:
            return next(int(line.split()[1]) / 1024 for line in f if line.startswith("RssAnon"))

    peak = {"v": 0.0}
    running = {"v": True}

    def sample() -> None:
        while running["v"]:
            peak["v"] = max(peak["v"], anon_mib())
            time.sleep(0.005)

    def peak_during(call):
        peak["v"], running["v"] = anon_mib(), True
        base = peak["v"]
        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        t0 = time.perf_counter()
        value = call()
        seconds = time.perf_counter() - t0
        running["v"] = False
        thread.join()
        return value, seconds, peak["v"] - base

    loaded, load_s, load_peak = peak_during(lambda: load_model(folder, device="cpu", precision=precision))
    weights = sum(p.numel() * p.element_size() for p in loaded.model.parameters()) / 2**20
    words = ("the model reads every token of this sentence and looks back at the ones before it " * 200).split()
    window = loaded.info.max_positions or long
    sentence = "The cat sat on the mat because it was warm."
    _, first_s, _ = peak_during(lambda: (encode(loaded, sentence, attentions=True), logit_lens(loaded, sentence, k=5)))
    out = {"parameters": loaded.info.parameters, "weights_mib": round(weights), "load_s": round(load_s, 2),
           "load_peak_mib": round(load_peak), "load_peak_ratio": round(load_peak / weights, 2),
           "first_view_s": round(first_s, 2), "layers": loaded.info.layers, "heads": loaded.info.heads}
    torch.set_grad_enabled(False)
    for n in sorted({128, 512, min(long, window)}):
        text = " ".join(words[: int(n * 0.8)])
        (enc, enc_s, enc_peak) = peak_during(lambda: encode(loaded, text, attentions=False))
        tokens = len(enc.tokens)
        _, lens_s, lens_peak = peak_during(lambda: logit_lens(loaded, text, k=5))
        out[f"tokens_{n}"] = {"tokens": tokens, "extract_tokens_per_s": round(tokens / enc_s),
                              "lens_s": round(lens_s, 2), "lens_peak_mib": round(lens_peak)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="comma-separated names (default: all): " + ",".join(SIZES))
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--cache", default="/tmp/lmwb-real-sizes", help="where the built models are kept")
    parser.add_argument("--precision", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--long", type=int, default=2048, help="the longest text, in tokens (capped by the window)")
    parser.add_argument("--json", help="write the numbers here")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: measure this folder in this process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.precision, args.long)))
        return
    names = QUICK if args.quick else (args.sizes.split(",") if args.sizes else list(SIZES))
    results = {}
    for name in names:
        folder = build(name, Path(args.cache) / name)
        done = subprocess.run([sys.executable, __file__, "--measure", str(folder), "--precision", args.precision,
                               "--long", str(args.long)], capture_output=True, text=True)
        if done.returncode != 0:
            results[name] = {"error": done.stderr.strip().splitlines()[-1]}
        else:
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        row = results[name]
        print(name, json.dumps(row), flush=True)
    if args.json:
        from tests.bench._common import environment

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"results": results, "precision": args.precision,
                                               "environment": environment()}, indent=1))


if __name__ == "__main__":
    main()

"""Extraction throughput: the engine's ``encode_texts`` vs plain ``transformers``.

Same model, same sentences, same thread count, hidden states of every layer,
no attentions. Three contenders, measured interleaved in one process:

  engine     lm_workbench.engine.analysis.encode_texts (length-bucketed batches, defaults
             except --batch-size), attentions=False
  batched    AutoTokenizer + AutoModel, batches of --batch-size in corpus
             order, padding=True, inference_mode, output_hidden_states=True,
             each sentence's unpadded hidden states copied out as float32 numpy
  one-by-one the same, one sentence per forward pass

Goals (reported, never asserted): engine/batched >= 0.95, engine/one-by-one >= 1.5.

    python tests/bench/bench_extraction.py [--model minilm] [--n 2000] [--threads N]
        [--batch-size 16] [--repeats 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402

GOAL_VS_BATCHED = 0.95
GOAL_VS_ONE_BY_ONE = 1.5


class Contender:
    def __init__(self, name: str, run: Callable[[list[str]], list[np.ndarray]]):
        self.name = name
        self.run = run
        self.seconds: list[float] = []
        self.others_load: list[float | None] = []  # CPUs' worth of other processes' work
        self.steal: list[float | None] = []  # CPUs' worth the hypervisor took away

    def measure(self, sentences: list[str]) -> list[np.ndarray]:
        load = OtherLoad()
        load.start()
        t0 = time.perf_counter()
        out = self.run(sentences)
        self.seconds.append(time.perf_counter() - t0)
        self.others_load.append(load.stop())
        self.steal.append(load.steal)
        return out


def main(argv: list[str] | None = None) -> int:
    from lm_workbench.engine.analysis import encode_texts, length_buckets
    from lm_workbench.engine.models.device import default_cpu_threads, set_cpu_threads
    from lm_workbench.engine.models.families import Family
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.progress import run_to_completion

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="minilm", help="any model spec load_model accepts (default: minilm)")
    ap.add_argument("--n", type=int, default=2000, help="sentences (default 2000)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: all cores)")
    ap.add_argument("--batch-size", type=int, default=16, help="batch size for the engine and the batched loop")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved measurements; the median is reported")
    ap.add_argument("--device", default="cpu", help="device for both (default cpu)")
    ap.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = ap.parse_args(argv)

    threads = set_cpu_threads(args.threads or default_cpu_threads())
    torch.set_num_threads(threads)  # the plain loops run in this process under the same setting

    sentences = prose_sentences(args.n)
    print(f"loading {args.model} ...", flush=True)
    loaded = load_model(args.model, device=args.device)
    if loaded.family is Family.ENCODER_DECODER:
        print("encoder-decoder models are not compared: the engine also runs the decoder side")
        return 2
    device = loaded.device.torch_device

    from transformers import AutoModel, AutoTokenizer

    folder = loaded.info.folder
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if tokenizer.pad_token is None:  # GPT-style tokenizers: what a user would do to batch
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModel.from_pretrained(folder, dtype=loaded.device.dtype).to(device).eval()
    attn_impl = getattr(model.config, "_attn_implementation", None)
    max_len = loaded.info.max_positions
    trunc: dict[str, Any] = dict(truncation=True, max_length=max_len) if max_len else {}

    lengths = [len(ids) for ids in tokenizer(sentences, **trunc)["input_ids"]]
    total_tokens = sum(lengths)
    max_batch_tokens = inspect.signature(encode_texts).parameters["max_batch_tokens"].default
    # tokens actually fed to the model, padding included: what bucketing saves
    padded_engine = sum(
        len(b) * max(lengths[i] for i in b) for b in length_buckets(lengths, args.batch_size, max_batch_tokens)
    )
    padded_batched = sum(
        len(chunk) * max(chunk) for chunk in
        (lengths[i:i + args.batch_size] for i in range(0, len(lengths), args.batch_size))
    )

    def engine_run(texts: list[str]) -> list[np.ndarray]:
        encs = run_to_completion(
            encode_texts(loaded, texts, attentions=False, batch_size=args.batch_size)
        )
        return [e.hidden_states for e in encs]

    def batched_run(texts: list[str]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for start in range(0, len(texts), args.batch_size):
                enc = tokenizer(texts[start:start + args.batch_size], padding=True, return_tensors="pt", **trunc)
                enc = {k: v.to(device) for k, v in enc.items()}
                res = model(**enc, output_hidden_states=True)
                hidden = torch.stack([h.float() for h in res.hidden_states]).cpu().numpy()  # [L+1, B, T, H]
                for b, n_tok in enumerate(enc["attention_mask"].sum(dim=1).tolist()):
                    if tokenizer.padding_side == "left":
                        out.append(np.ascontiguousarray(hidden[:, b, hidden.shape[2] - n_tok:]))
                    else:
                        out.append(np.ascontiguousarray(hidden[:, b, :n_tok]))
        return out

    def one_by_one_run(texts: list[str]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for text in texts:
                enc = tokenizer(text, return_tensors="pt", **trunc)
                enc = {k: v.to(device) for k, v in enc.items()}
                res = model(**enc, output_hidden_states=True)
                out.append(np.ascontiguousarray(torch.stack([h[0].float() for h in res.hidden_states]).cpu().numpy()))
        return out

    contenders = [
        Contender("engine", engine_run),
        Contender("batched", batched_run),
        Contender("one-by-one", one_by_one_run),
    ]

    # warm-up (allocator, kernels, lazy init) on a few sentences each
    for c in contenders:
        c.run(sentences[: max(2, 2 * args.batch_size)])

    print(
        f"model {args.model} ({loaded.info.model_type}, {loaded.info.layers} layers, attention for plain: {attn_impl}), "
        f"{len(sentences)} sentences / {total_tokens} tokens, torch {torch.__version__}, {threads} threads, "
        f"batch size {args.batch_size}, {args.repeats} repeats",
        flush=True,
    )
    check: dict[str, list[np.ndarray]] = {}
    for r in range(args.repeats):
        order = contenders[r % 3:] + contenders[: r % 3]  # rotate so no contender always runs first
        for c in order:
            out = c.measure(sentences)
            print(f"  repeat {r + 1}: {c.name:<10} {c.seconds[-1]:7.2f} s", flush=True)
            if r == args.repeats - 1 and c.name in ("engine", "batched"):
                check[c.name] = out
            del out

    # the engine and the plain loop must compute the same thing
    max_diff = max(
        float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
        for a, b in zip(check["engine"], check["batched"])
    )
    del check

    rows = {}
    for c in contenders:
        med = statistics.median(c.seconds)
        rows[c.name] = {
            "seconds": [round(s, 3) for s in c.seconds],
            "median_seconds": round(med, 3),
            "sentences_per_s": round(len(sentences) / med, 1),
            "tokens_per_s": round(total_tokens / med, 1),
            "other_processes_cpus": c.others_load,
            "steal_cpus": c.steal,
        }
    vs_batched = rows["batched"]["median_seconds"] / rows["engine"]["median_seconds"]
    vs_single = rows["one-by-one"]["median_seconds"] / rows["engine"]["median_seconds"]
    per_repeat_vs_batched = [round(b / e, 3) for e, b in zip(contenders[0].seconds, contenders[1].seconds)]

    print()
    print(f"{'contender':<11} {'median s':>9} {'sent/s':>8} {'tokens/s':>9}   runs (s)")
    for name, row in rows.items():
        runs = ", ".join(f"{s:.2f}" for s in row["seconds"])
        print(f"{name:<11} {row['median_seconds']:>9.2f} {row['sentences_per_s']:>8.1f} {row['tokens_per_s']:>9.0f}   {runs}")
    print()
    print(f"engine / batched     {vs_batched:5.2f}x  (goal >= {GOAL_VS_BATCHED}: {verdict(vs_batched >= GOAL_VS_BATCHED)})")
    print(f"engine / one-by-one  {vs_single:5.2f}x  (goal >= {GOAL_VS_ONE_BY_ONE}: {verdict(vs_single >= GOAL_VS_ONE_BY_ONE)})")
    print(f"max |engine - batched| over all hidden states: {max_diff:.2e}")
    print(f"tokens fed incl. padding: engine {padded_engine}, batched {padded_batched} (real {total_tokens})")
    loads = [x for c in contenders for x in c.others_load if x is not None]
    steal = [x for c in contenders for x in c.steal if x is not None]
    if (loads and max(loads) > 0.1) or (steal and max(steal) > 0.05):
        print(f"note: other processes used up to {max(loads, default=0):.2f} CPUs and the hypervisor took up to "
              f"{max(steal, default=0):.2f} CPUs during the measurements; timings are noisy")

    write_json(args.json, {
        "benchmark": "extraction",
        "model": args.model,
        "model_type": loaded.info.model_type,
        "plain_attention_implementation": attn_impl,
        "device": str(device),
        "dtype": loaded.device.dtype_name,
        "n": len(sentences),
        "tokens": total_tokens,
        "batch_size": args.batch_size,
        "max_batch_tokens": max_batch_tokens,
        "padded_tokens_engine": padded_engine,
        "padded_tokens_batched": padded_batched,
        "threads": threads,
        "repeats": args.repeats,
        "results": rows,
        "ratio_engine_vs_batched": round(vs_batched, 3),
        "ratio_engine_vs_batched_per_repeat": per_repeat_vs_batched,
        "ratio_engine_vs_one_by_one": round(vs_single, 3),
        "goal_engine_vs_batched": GOAL_VS_BATCHED,
        "goal_engine_vs_batched_met": vs_batched >= GOAL_VS_BATCHED,
        "goal_engine_vs_one_by_one": GOAL_VS_ONE_BY_ONE,
        "goal_engine_vs_one_by_one_met": vs_single >= GOAL_VS_ONE_BY_ONE,
        "max_abs_diff_engine_vs_batched": max_diff,
        "environment": environment(),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())

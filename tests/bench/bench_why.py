""""Why did the model say that" at real sizes: attribution and a full patching sweep, timed.

Random-weight BERT-base and a Llama-style 1.1B decoder (22 layers), built from configs as
``bench_real_sizes.py`` builds them (cached in ``--cache``), loaded in float32 on the CPU. For each model and
text length: gradient x input (one forward and backward), integrated gradients at 32 steps (33 gradient
evaluations, batched), and a full activation-patching sweep of ``resid`` (layers x tokens corrupted runs,
one batch per layer). It prints how each grows with layers x tokens.

    python tests/bench/bench_why.py --json /tmp/bench/why.json      # BERT-base at 16/64/256, the 1.1B at 16/64
    python tests/bench/bench_why.py --quick                         # BERT-base at 16/64, the 1.1B at 16 without IG
    # options: --cache DIR --models bert-base,llama-1.1b --lengths 16,64,256

Not asserted anywhere: it prints a table and writes the numbers; tests/bench/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WORDS = ["the", "value", "of", "a", "list", "is", "in", "one", "name", "and", "for", "to"]


def texts(loaded, n: int) -> tuple[str, str, str]:
    """(clean, corrupt, answer): ``n`` tokens each (masked LMs: ending in the mask), differing in one word."""
    tok = loaded.tokenizer
    masked = loaded.family.value == "encoder"
    words: list[str] = []
    while True:
        words.append(WORDS[len(words) % len(WORDS)])
        clean = " ".join(words) + (" [MASK]" if masked else "")
        if len(tok(clean.replace("[MASK]", tok.mask_token or ""))["input_ids"]) >= n:
            break
    for other in ("name", "list", "one", "value"):
        if other != words[1]:
            corrupt = " ".join([words[0], other, *words[2:]]) + (" [MASK]" if masked else "")
            if len(tok(corrupt.replace("[MASK]", tok.mask_token or ""))["input_ids"]) == len(
                    tok(clean.replace("[MASK]", tok.mask_token or ""))["input_ids"]):
                break
    answer = tok.convert_ids_to_tokens(tok(" " + words[1] if not masked else words[1],
                                           add_special_tokens=False)["input_ids"][:1])[0]
    return clean, corrupt, answer


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(name: str, folder: Path, lengths: list[int], skip_ig: bool) -> list[dict]:
    import torch

    from lm_workbench.engine.attribution.attribute import attribute
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.patching.tracing import patch

    torch.set_num_threads(max(1, torch.get_num_threads()))
    loaded = load_model(str(folder), device="cpu", precision="float32")
    rows = []
    for n in lengths:
        clean, corrupt, answer = texts(loaded, n)
        tokens = len(loaded.tokenizer(clean.replace("[MASK]", loaded.tokenizer.mask_token or ""))["input_ids"])
        row = {"model": name, "layers": loaded.info.layers, "tokens": tokens,
               "layers_x_tokens": loaded.info.layers * tokens}
        row["grad_input_s"] = timed(lambda: attribute(loaded, clean, "grad-input"))
        row["ig32_s"] = None if skip_ig else timed(lambda: attribute(loaded, clean, "integrated-gradients", steps=32))
        kept = {}
        row["patching_s"] = timed(lambda: kept.setdefault("r", patch(loaded, clean, corrupt, answer, site="resid")))
        row["patching_note"] = kept["r"].note  # set when both texts give the same metric (no sweep runs)
        row["patching_ms_per_cell"] = 1000 * row["patching_s"] / row["layers_x_tokens"]
        rows.append(row)
        print(f"{name:>11}  {row['layers']:>3} x {tokens:>4} = {row['layers_x_tokens']:>6}  grad-input "
              f"{row['grad_input_s']:7.2f} s  IG-32 "
              f"{'skipped' if row['ig32_s'] is None else format(row['ig32_s'], '7.2f') + ' s':>9}  patching "
              f"{row['patching_s']:7.2f} s ({row['patching_ms_per_cell']:.1f} ms per cell)"
              + (f"  [{row['patching_note']}]" if row["patching_note"] else ""), flush=True)
    return rows


def main() -> None:
    from tests.bench.bench_real_sizes import build

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default="/tmp/lmwb-real-sizes", help="where the built models are kept (shared with bench_real_sizes.py)")
    parser.add_argument("--models", default="bert-base,llama-1.1b")
    parser.add_argument("--lengths", default=None, help="token counts, comma-separated")
    parser.add_argument("--quick", action="store_true", help="BERT-base at 16/64, the 1.1B at 16 without IG")
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    results = []
    for name in args.models.split(","):
        big = name.startswith("llama")
        if args.lengths:
            lengths = [int(v) for v in args.lengths.split(",")]
        elif args.quick:
            lengths = [16] if big else [16, 64]
        else:
            lengths = [16, 64] if big else [16, 64, 256]
        folder = build(name, Path(args.cache) / name)
        results += measure(name, folder, lengths, skip_ig=args.quick and big)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()

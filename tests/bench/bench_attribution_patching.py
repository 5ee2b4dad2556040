"""Attribution patching against the exact activation-patching sweep: time, and how well the two agree.

For each model and text length (a clean and a corrupted text differing in one word, from ``bench_why.texts``):
the exact ``resid`` sweep (``lm_workbench.engine.patching.tracing.patch``: layers x tokens patched runs) and attribution
patching of all three sites (``lm_workbench.engine.patching.attribution_patching``: one clean forward, one corrupted forward,
one backward pass), then the Pearson correlation of the two ``resid`` matrices. Models: the tests' tiny GPT-2
(``tiny-gpt2``, built from ``tests/support/tiny_models.py``), the random-weight models of ``bench_real_sizes.py``
(e.g. ``llama-1.1b``: the Llama-style 1.1B's shape, random weights; no trained 1.1B is available offline).

    python tests/bench/bench_attribution_patching.py                                    # tiny GPT-2 at 16/64
    python tests/bench/bench_attribution_patching.py --models llama-1.1b --lengths 32   # the issue's bound
    # options: --cache DIR (shared with bench_real_sizes.py) --repeats 3 (median) --threads N --device cpu|cuda
    #          --json PATH

Not asserted anywhere: it prints a table and writes the numbers; tests/bench/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def folder_for(name: str, cache: Path) -> Path:
    if name == "tiny-gpt2":
        from tests.support.tiny_models import build_tiny_model

        folder = cache / name
        return folder if (folder / "config.json").is_file() else build_tiny_model("gpt2", folder)
    from tests.bench.bench_real_sizes import build

    return build(name, cache / name)


def timed(call, repeats: int):
    """(the median seconds of ``repeats`` calls, the last call's value)."""
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def measure(name: str, folder: Path, lengths: list[int], repeats: int, device: str = "cpu") -> list[dict]:
    import torch

    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.patching.attribution_patching import attribution_patch
    from lm_workbench.engine.patching.comparison import compare
    from lm_workbench.engine.patching.tracing import patch
    from tests.bench.bench_why import texts

    loaded = load_model(str(folder), device=device, precision="float32")
    rows = []
    for n in lengths:
        clean, corrupt, answer = texts(loaded, n)
        attribution_patch(loaded, clean, corrupt, answer, sites=("resid",))  # warm-up (autograd's first pass)
        approx_s, approx = timed(lambda: attribution_patch(loaded, clean, corrupt, answer), repeats)
        exact_s, exact = timed(lambda: patch(loaded, clean, corrupt, answer, site="resid"), repeats)
        r = compare(approx["resid"].effect, exact.effect, exact.tokens).pearson
        row = {"model": name, "layers": loaded.info.layers, "tokens": len(exact.tokens), "exact_resid_s": exact_s,
               "attribution_all_sites_s": approx_s, "ratio": approx_s / exact_s, "pearson_resid": r,
               "repeats": repeats, "note": exact.note, "threads": torch.get_num_threads(), "device": device}
        rows.append(row)
        print(f"{name:>11}  {row['layers']:>3} x {row['tokens']:>3}  exact resid sweep {exact_s:8.2f} s  "
              f"attribution (3 sites) {approx_s:7.3f} s  = 1/{exact_s / approx_s:.0f} of the sweep  "
              f"Pearson r (resid) {'undefined' if r is None else format(r, '.3f')}"
              + (f"  [{exact.note}]" if exact.note else ""), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default="/tmp/lmwb-real-sizes", help="where built models are kept")
    parser.add_argument("--models", default="tiny-gpt2")
    parser.add_argument("--lengths", default="16,64", help="token counts, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="median of this many runs of each (default 3)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch's CPU threads (default: torch's own; on a busy shared machine 1 avoids the "
                             "threads waiting on each other, which made the tiny model's passes 50x slower)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    results = []
    for name in args.models.split(","):
        folder = folder_for(name, Path(args.cache))
        results += measure(name, folder, [int(v) for v in args.lengths.split(",")], args.repeats, args.device)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()

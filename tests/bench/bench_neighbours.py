"""Nearest-neighbour query latency: ``NeighbourIndex.query`` vs a plain numpy brute force.

100,000 x 384 float32 vectors (seeded Gaussian clusters, with 5% of the rows
exact copies of another row, as static vectors of one word are), k = 10.
Both contenders get pre-normalised rows, so only the query is timed:

  engine     NeighbourIndex(vectors).query(i, k): matrix-vector product,
             argpartition, float64 rescoring of the candidates, tie groups
  numpy      scores = unit @ unit[i]; argpartition of k + 1; sort those; drop i
  engine+mask  the engine with a candidates mask (1% of rows, a "same word"
             query) and an exclude mask (its "same line")

Queries run interleaved (engine, numpy, engine, ...) over the same seeded
indices after a warm-up. Goal (reported, never asserted): engine p95 < 50 ms.

    python tests/bench/bench_neighbours.py [--n 100000] [--dim 384] [--k 10] [--queries 200]
        [--threads N] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from _common import OtherLoad, environment, verdict, write_json  # noqa: E402

GOAL_MS = 50.0


def clustered_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    """[n, dim] float32: 200 Gaussian clusters plus 5% exact duplicate rows (ties)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((200, dim)).astype(np.float32)
    x = centres[rng.integers(0, 200, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
    dup = rng.choice(n, size=n // 20, replace=False)
    x[dup] = x[rng.integers(0, n, dup.size)]
    return x


def numpy_brute_force(unit: np.ndarray, i: int, k: int) -> np.ndarray:
    scores = unit @ unit[i]
    top = np.argpartition(-scores, k)[: k + 1]
    top = top[np.argsort(-scores[top])]
    return top[top != i][:k]


def percentiles(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2),
            "max_ms": round(float(a.max()), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="BLAS threads (set before numpy loads; default: all)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    if args.threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)

    from lm_workbench.engine.embeddings.neighbours import NeighbourIndex, normalise_rows

    x = clustered_vectors(args.n, args.dim, args.seed)
    t0 = time.perf_counter()
    index = NeighbourIndex(x)
    build_s = time.perf_counter() - t0
    unit = normalise_rows(x)
    rng = np.random.default_rng(args.seed + 1)
    queries = rng.integers(0, args.n, args.queries)
    candidates = rng.random(args.n) < 0.01
    exclude = np.zeros(args.n, dtype=bool)

    for i in queries[:5]:  # warm-up
        index.query(int(i), args.k)
        numpy_brute_force(unit, int(i), args.k)

    times: dict[str, list[float]] = {"engine": [], "numpy": [], "engine+mask": []}
    agree = tied = 0
    load = OtherLoad()
    load.start()
    for i in queries:
        i = int(i)
        t = time.perf_counter()
        ours = index.query(i, args.k)
        times["engine"].append(1e3 * (time.perf_counter() - t))
        t = time.perf_counter()
        ref = numpy_brute_force(unit, i, args.k)
        times["numpy"].append(1e3 * (time.perf_counter() - t))
        exclude[max(0, i - 20):i + 20] = True  # a "same line" block around the query
        t = time.perf_counter()
        index.query(i, args.k, exclude=exclude, candidates=candidates)
        times["engine+mask"].append(1e3 * (time.perf_counter() - t))
        exclude[max(0, i - 20):i + 20] = False
        if any(nb.tied for nb in ours):
            tied += 1  # ties: the engine groups them, numpy's order among them is arbitrary
        elif [nb.index for nb in ours] == [int(j) for j in ref]:
            agree += 1
    others = load.stop()

    rows = {name: percentiles(ms) for name, ms in times.items()}
    print(f"\n{args.n} x {args.dim} float32, k={args.k}, {args.queries} queries; index built in {build_s:.2f} s")
    print(f"{'contender':<12} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, r in rows.items():
        print(f"{name:<12} {r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} {r['max_ms']:>8.2f}")
    ratio = rows["engine"]["p50_ms"] / rows["numpy"]["p50_ms"]
    print(f"\nengine / numpy (p50)  {ratio:.2f}x")
    print(f"engine p95 {rows['engine']['p95_ms']:.1f} ms (goal < {GOAL_MS:.0f} ms: "
          f"{verdict(rows['engine']['p95_ms'] < GOAL_MS)})")
    print(f"same neighbours as numpy, same order: {agree}/{args.queries - tied} queries without ties "
          f"({tied} queries had tied neighbours)")
    print(f"note: other processes used {others} CPUs, steal {load.steal} while measuring")
    write_json(args.json, {"benchmark": "neighbours", "settings": vars(args), "build_s": round(build_s, 3),
                           "results": rows, "engine_over_numpy_p50": round(ratio, 3), "goal_ms": GOAL_MS,
                           "others_cpus": others, "steal": load.steal, "environment": environment()})


if __name__ == "__main__":
    main()

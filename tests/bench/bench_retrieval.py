"""Retrieval at scale: passages/s encoded by the workbench's indexing against plain sentence-transformers
``encode`` (same model, same process, same threads), and exact query latency at 10k and 100k passages.

Encoding (all-MiniLM-L6-v2, its own pooling: mean + L2, 256-token window; prose sentences from the stdlib):

  workbench   ``index_corpus_job`` into an empty cache folder: tokenize, sort by length, encode in batches of
              32, pool, normalise, write the cached chunks (what the Retrieval tab and ``retrieve`` run)
  st          ``SentenceTransformer(folder).encode(texts, batch_size=32, normalize_embeddings=True)``

run interleaved (workbench, st, workbench, st, ...) for ``--rounds`` rounds; the best round of each counts.
Goal (reported, never asserted): workbench / st >= 1.0. The vectors of both are compared (max |difference|).

Query latency: the encoded vectors tiled with seeded noise to 10,000 and 100,000 unit rows (float32, 384
wide), and ``--queries`` real queries: the search alone (one matrix-vector product and the top 10 with ties
in corpus order, ``lm_workbench.engine.retrieval.search.search``) and end to end (the query encoded with MiniLM, then
searched), as wall time and as this process's CPU time (on a shared machine the wall time includes waiting
for a core). Goal: search p95 < 50 ms at 100k.

    python tests/bench/bench_retrieval.py [--passages 2000] [--rounds 2] [--sizes 10000 100000]
        [--queries 100] [--threads N] [--latency-only] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

if "--threads" in sys.argv[:-1]:  # BLAS reads its thread count when numpy loads: set it before the import
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = sys.argv[sys.argv.index("--threads") + 1]

import numpy as np  # noqa: E402

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402

GOAL_RATIO = 1.0
GOAL_MS = 50.0


def percentiles(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2),
            "max_ms": round(float(a.max()), 2)}


def tiled(vectors: np.ndarray, n: int, seed: int) -> np.ndarray:
    """[n, H] unit float32 rows: the real vectors repeated, each copy moved by seeded noise."""
    rng = np.random.default_rng(seed)
    reps = -(-n // len(vectors))
    x = np.tile(vectors, (reps, 1))[:n] + 0.05 * rng.standard_normal((n, vectors.shape[1])).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--passages", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="torch and BLAS threads (default: torch's)")
    ap.add_argument("--latency-only", action="store_true",
                    help="skip the sentence-transformers comparison: encode the passages once, then time queries")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)

    import torch
    from sentence_transformers import SentenceTransformer

    from lm_workbench.engine.models.default import default_model_folder
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.progress import run_to_completion
    from lm_workbench.engine.retrieval.corpus import corpus_from_lines
    from lm_workbench.engine.retrieval.encode import PassageEncoder
    from lm_workbench.engine.retrieval.index import index_corpus_job
    from lm_workbench.engine.retrieval.search import search

    if args.threads:
        torch.set_num_threads(args.threads)
    texts = prose_sentences(args.passages)
    corpus = corpus_from_lines(texts)
    loaded = load_model("minilm", device="cpu", precision="float32")
    st = SentenceTransformer(str(default_model_folder()), device="cpu")
    encoder = PassageEncoder(loaded, "model")
    encoder.encode(texts[:64])  # warm-up both
    st.encode(texts[:64], batch_size=32, normalize_embeddings=True, convert_to_numpy=True)

    rounds: dict[str, list[float]] = {"workbench": [], "st": []}
    ours = theirs = None
    load = OtherLoad()
    load.start()
    for _ in range(1 if args.latency_only else args.rounds):
        with tempfile.TemporaryDirectory() as cache:
            t = time.perf_counter()
            index = run_to_completion(index_corpus_job(loaded, corpus, "model", cache, encoder=encoder))
            rounds["workbench"].append(len(texts) / (time.perf_counter() - t))
            ours = index.vectors
        if args.latency_only:
            break
        t = time.perf_counter()
        theirs = st.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
        rounds["st"].append(len(texts) / (time.perf_counter() - t))
    others = load.stop()
    best = {name: max(v) for name, v in rounds.items() if v}
    ratio = best["workbench"] / best["st"] if "st" in best else float("nan")
    diff = float(np.abs(ours - theirs).max()) if theirs is not None else float("nan")

    print(f"\nencoding {len(texts):,} passages with all-MiniLM-L6-v2 ({torch.get_num_threads()} torch threads), "
          f"{args.rounds} interleaved rounds")
    for name, values in rounds.items():
        if not values:
            continue
        print(f"{name:<10} best {best[name]:8.1f} passages/s   rounds: {', '.join(f'{v:.1f}' for v in values)}")
    if not args.latency_only:
        print(f"workbench / st {ratio:.2f}x (goal >= {GOAL_RATIO}: {verdict(ratio >= GOAL_RATIO)}); "
              f"max |vector difference| {diff:.2e}; truncated {index.truncated}")
    print(f"note: other processes used {others} CPUs, steal {load.steal} while encoding")

    rng = np.random.default_rng(args.seed + 1)
    queries = [texts[int(i)][: 60] for i in rng.integers(0, len(texts), args.queries)]
    latency: dict[str, dict[str, dict[str, float]]] = {}
    load.start()
    for n in args.sizes:
        vectors = tiled(ours, n, args.seed)
        qvecs, _ = encoder.encode(queries)
        search(vectors, qvecs[0], 10)  # warm-up
        only, end_to_end, only_cpu, end_to_end_cpu = [], [], [], []
        for j, query in enumerate(queries):
            t, c = time.perf_counter(), time.process_time()
            search(vectors, qvecs[j], 10)
            only.append(1e3 * (time.perf_counter() - t))
            only_cpu.append(1e3 * (time.process_time() - c))
            t, c = time.perf_counter(), time.process_time()
            q, _ = encoder.encode([query])
            search(vectors, q[0], 10)
            end_to_end.append(1e3 * (time.perf_counter() - t))
            end_to_end_cpu.append(1e3 * (time.process_time() - c))
        latency[str(n)] = {"search": percentiles(only), "encode+search": percentiles(end_to_end),
                           "search (CPU time)": percentiles(only_cpu),
                           "encode+search (CPU time)": percentiles(end_to_end_cpu)}
    others_q = load.stop()
    print(f"\nquery latency, k=10, {args.queries} queries ({'/'.join(f'{n:,}' for n in args.sizes)} passages x 384 float32)")
    print(f"{'passages':>9} {'what':<25} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for n, rows in latency.items():
        for what, r in rows.items():
            print(f"{int(n):>9,} {what:<25} {r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} {r['max_ms']:>8.2f}")
    largest = latency[str(max(args.sizes))]["search"]["p95_ms"]
    print(f"search p95 at {max(args.sizes):,}: {largest:.1f} ms (goal < {GOAL_MS:.0f} ms: {verdict(largest < GOAL_MS)})")
    print(f"note: other processes used {others_q} CPUs, steal {load.steal} while querying")
    write_json(args.json, {"benchmark": "retrieval", "settings": vars(args), "passages_per_s": rounds,
                           "best": best, "workbench_over_st": round(ratio, 3), "max_abs_diff": diff,
                           "latency": latency, "others_cpus": {"encoding": others, "queries": others_q},
                           "environment": environment()})


if __name__ == "__main__":
    main()

"""``retrieve`` and ``retrieval-eval``: search a corpus with a sentence encoder, and measure it against BM25.

``lm-workbench retrieve MODEL --corpus F --query TEXT [--k 10] [--pooling mean|cls|max|model] --json`` prints::

    {"query": "...", "results": [{"id": "...", "score": S, "text": "..."}, ...], "pooling": "..."}

F is a text file (one passage per line, numbered by line from 1), a .csv/.tsv/.jsonl table (a text column,
an id column when there is one, a title prepended when there is one) or a BEIR folder (its corpus.jsonl).
Scores are cosines of L2-normalised vectors; equal scores keep corpus order.

``lm-workbench retrieval-eval MODEL --data BEIR_FOLDER [--split test] [--k 10] [--bm25] --json`` prints::

    {"queries": Q, "documents": D,
     "model": {"ndcg@10": ..., "mrr@10": ..., "recall@1": ..., "recall@10": ..., "recall@100": ...},
     "bm25": {...} or null, ...}

ranking every judged query at least 100 deep (nDCG with linear gain as trec_eval; a grade > 0 is relevant),
plus ``run_id``: each evaluation is recorded as a run (kind ``retrieval-eval``, see the Runs tab).
The corpus's vectors are cached in the workbench's cache folder by model + pooling + corpus hash, so a second
command with the same model reads them back. Pooling defaults to the model's own (a sentence-transformers
folder such as the built-in MiniLM), else mean.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.retrieval.names import BM25_B, BM25_K1, BM25_METHODS, DEFAULT_K, METRIC_KEYS, POOLINGS
from lm_workbench.cli.common import (
    StderrProgress, add_model_options, add_tsv_quoting_option, evaluated, handled_by, load_for, print_json, say_read,
    wants_progress,
)
from lm_workbench.command_results.compute_evaluations import retrieval_eval_spec as eval_spec_from_args  # noqa: F401

SHOWN_CHARS = 200  # of a passage in the text output (--json gives it whole)
POOLING_HELP = ("passage vectors: mean of the tokens, the first token (cls), the element-wise max, or the model's "
                "declared pooling (default: the model's when it declares one, else mean)")


def register(sub: Any) -> None:
    """Add ``retrieve`` and ``retrieval-eval`` to the CLI's subparsers."""
    rt = sub.add_parser("retrieve", help="the passages of a corpus nearest to a query (sentence-encoder search)")
    add_model_options(rt)
    rt.add_argument("--corpus", required=True, metavar="F",
                    help="a .txt (one passage per line), .csv/.tsv/.jsonl (text, id, title columns) or a BEIR folder")
    add_tsv_quoting_option(rt)
    rt.add_argument("--query", required=True, metavar="TEXT", help="what to search for")
    rt.add_argument("--k", type=int, default=DEFAULT_K, help=f"how many results to list (default {DEFAULT_K})")
    rt.add_argument("--pooling", choices=POOLINGS, help=POOLING_HELP)
    rt.add_argument("--progress", action="store_true", help="show the indexing progress even with --json")
    handled_by(rt, cmd_retrieve)

    ev = sub.add_parser("retrieval-eval", help="nDCG@10, MRR@10, Recall@1/10/100 on a BEIR folder (and BM25's)")
    add_model_options(ev)
    ev.add_argument("--data", required=True, metavar="BEIR_FOLDER",
                    help="a folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv (BEIR's layout)")
    ev.add_argument("--split", default="test", help="the qrels split (default test)")
    ev.add_argument("--k", type=int, default=DEFAULT_K,
                    help="ranking depth (default 10; every query is ranked at least 100 deep for Recall@100)")
    ev.add_argument("--pooling", choices=POOLINGS, help=POOLING_HELP)
    ev.add_argument("--bm25", action="store_true", help="also rank with BM25 (bm25s) and compare per query")
    ev.add_argument("--bm25-k1", type=float, default=BM25_K1, help=f"BM25's k1 (default {BM25_K1})")
    ev.add_argument("--bm25-b", type=float, default=BM25_B, help=f"BM25's b (default {BM25_B})")
    ev.add_argument("--bm25-method", choices=BM25_METHODS, default="lucene", help="bm25s's variant (default lucene)")
    ev.add_argument("--keep-identical-ids", action="store_true",
                    help="score a passage whose id is the query's own id (BEIR leaves it out by default)")
    ev.add_argument("--progress", action="store_true", help="show progress even with --json")
    handled_by(ev, cmd_retrieval_eval)


def cmd_retrieve(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import check_retrieve, read_retrieval_corpus, retrieve
    from lm_workbench.requests import request_of

    request = request_of(args)
    check_retrieve(request)
    corpus = read_retrieval_corpus(request)  # a bad file fails before the model loads
    bar = StderrProgress() if wants_progress(args) else None
    try:
        computed = retrieve(request, load_for(args), corpus=corpus, listener=bar)
    finally:
        if bar is not None:
            bar.close()
    if not (corpus.report.rows_skipped or corpus.report.notes):
        say_read(corpus.report, args)  # after the search: a refusal stays one line
    data = computed.to_dict()
    if args.json:
        print_json(data)
        return 0
    hits = computed.engine_result[1]
    print(f"{len(hits)} of {len(corpus):,} passages for {args.query!r} ({data['pooling']} pooling, cosine):")
    for h in hits:
        text = h.text if len(h.text) <= SHOWN_CHARS else h.text[:SHOWN_CHARS].rstrip() + "…"
        print(f"{h.rank:>3}. {h.score:7.4f}  [{h.id}] {text}")
    return 0


def cmd_retrieval_eval(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import retrieval_eval
    from lm_workbench.retrieval.runs import RetrievalEvalRun

    computed = evaluated(RetrievalEvalRun(eval_spec_from_args(args)), args, retrieval_eval)
    if computed is None:
        return 0
    result = computed.engine_result
    print(f"{result.queries:,} queries, {result.documents:,} documents, split {result.split}, {result.pooling} pooling")
    print(f"{'metric':<11} {'model':>7}" + (f" {'BM25':>7}" if result.bm25 else ""))
    for key in METRIC_KEYS:
        line = f"{key:<11} {result.model.mean[key]:>7.4f}"
        if result.bm25:
            line += f" {result.bm25.mean[key]:>7.4f}"
        print(line)
    if result.bm25:
        c = result.counts()
        print(f"per query (nDCG@10): the model wins {c['wins']}, loses {c['losses']}, ties {c['ties']} "
              f"({result.bm25_params.label()})")
    print(f"run {computed['run_id']}")
    return 0

"""``baseline tfidf-lr|bilstm``: the lectures' baselines on a labelled sentence file, recorded as runs."""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import echo, print_json


def _data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--train", required=True, help="a labelled sentence file (TSV/CSV/JSONL; 'demo': the shipped "
                                                  "sentiment set)")
    p.add_argument("--validation", help="the file scored (default: a held-out share of --train)")
    p.add_argument("--validation-fraction", type=float, default=0.2, help="share held out when no --validation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--text-column")
    p.add_argument("--label-column")
    p.add_argument("--tsv-quoting", default="auto")
    p.add_argument("--keep-unseen-labels", action="store_true",
                   help="leave out validation rows whose label training never shows (default: refuse them)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def register(sub: Any) -> None:
    """Add ``baseline`` to the CLI's subparsers."""
    base = sub.add_parser("baseline", help="TF-IDF + logistic regression, or a BiLSTM from scratch")
    kinds = base.add_subparsers(dest="baseline_kind", metavar="KIND")
    kinds.required = True
    tfidf = kinds.add_parser("tfidf-lr", help="TF-IDF features + logistic regression (scikit-learn)")
    _data_options(tfidf)
    tfidf.add_argument("--vectorizer", default="{}", help="TfidfVectorizer's settings as JSON")
    tfidf.add_argument("--classifier", default="{}", help="LogisticRegression's settings as JSON")
    bilstm = kinds.add_parser("bilstm", help="a BiLSTM sentence classifier trained from scratch")
    _data_options(bilstm)
    for name, kind, default in (("embedding", int, 64), ("hidden", int, 64), ("layers", int, 1),
                                ("dropout", float, 0.1), ("epochs", int, 8), ("batch-size", int, 32),
                                ("lr", float, 5e-3), ("min-count", int, 1), ("max-length", int, 64)):
        bilstm.add_argument(f"--{name}", type=kind, default=default)
    base.set_defaults(handler=cmd_baseline)


def cmd_baseline(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_course import baseline
    from lm_workbench.requests import request_of

    summary = baseline(request_of(args), echo=None if args.json else echo).to_dict()
    if args.json:
        print_json(summary)
    elif summary and not summary.get("cancelled"):
        print(f"accuracy {summary['accuracy']:.4f} (majority {summary['majority']:.4f}), "
              f"{int(summary['trainable_parameters']):,} trained parameters, {summary['wall_s']:.1f} s")
    return 0

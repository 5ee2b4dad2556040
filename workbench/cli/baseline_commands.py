"""``baseline tfidf-lr|bilstm``: the lectures' baselines on a labelled sentence file, recorded as runs."""

from __future__ import annotations

import argparse
import json
from typing import Any

from lm_workbench.cli.common import echo, print_json
from lm_workbench.engine.errors import WorkbenchError


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


def _json_option(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise WorkbenchError(f"{flag} must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise WorkbenchError(f"{flag} must be a JSON object, not {text!r}")
    return value


def cmd_baseline(args: argparse.Namespace) -> int:
    from lm_workbench.baselines.runs import BiLSTMRun, TfidfRun
    from lm_workbench.baselines.spec import BiLSTMSpec, TfidfSpec

    common = dict(train=args.train, validation=args.validation, validation_fraction=args.validation_fraction,
                  seed=args.seed, text_column=args.text_column, label_column=args.label_column,
                  tsv_quoting=args.tsv_quoting)
    if args.baseline_kind == "tfidf-lr":
        run: Any = TfidfRun(TfidfSpec(**common, vectorizer=_json_option(args.vectorizer, "--vectorizer"),
                                      classifier=_json_option(args.classifier, "--classifier")))
    else:
        net = {k: getattr(args, k) for k in BiLSTMSpec.NET}
        run = BiLSTMRun(BiLSTMSpec(**common, **net))
    summary = run.in_process(echo=None if args.json else echo)
    if args.json:
        print_json(summary)
    elif summary and not summary.get("cancelled"):
        print(f"accuracy {summary['accuracy']:.4f} (majority {summary['majority']:.4f}), "
              f"{int(summary['trainable_parameters']):,} trained parameters, {summary['wall_s']:.1f} s")
    return 0

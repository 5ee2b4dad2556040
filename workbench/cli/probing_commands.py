"""``probe`` and ``sts``: what each layer of a model encodes, from the command line.

``lm-workbench probe MODEL --task FILE --kind token|sentence --json`` fits a
linear probe on every layer's representations (token tasks: a CoNLL / CoNLL-U
file of words and tags, each word the mean of its subwords; sentence tasks: a
CSV/TSV with ``text`` and ``label``, pooled with ``--pooling``) and the
Hewitt & Liang control task, and prints::

    {"layers": [0, ..., L], "accuracy": [...], "control_accuracy": [...],
     "selectivity": [...], "majority": M, ...}

``lm-workbench sts MODEL --data FILE --json`` scores sentence pairs
(``sentence1``, ``sentence2``, ``score``) by the cosine of pooled sentence
vectors at every layer and prints ``{"layers": [...], "pooling": "...",
"spearman": [...], "notes": [...]}`` (null where a layer's vectors are all alike, so rho is undefined; ``notes``
says so per layer). ``--task demo`` / ``--data demo`` use the built-in POS
set and STS pairs. Both record the result as a run (kinds ``probe``/``sts``,
metrics per layer with step = layer) and print its id as ``run_id``.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.probing.names import KINDS
from lm_workbench.cli.common import (
    add_model_options, add_task_column_options, add_tsv_quoting_option, evaluated, handled_by,
)
from lm_workbench.command_results.compute_evaluations import (  # noqa: F401 - its name here
    probe_spec as probe_spec_from_args,
)
from lm_workbench.command_results.compute_evaluations import sts_spec as sts_spec_from_args  # noqa: F401

POOLING_HELP = ("sentence vectors: mean of the tokens, the first token (cls), the model's declared pooling (model; a "
                "sentence-embedding run: the pooling it trained) or the element-wise maximum (max)")


def register(sub: Any) -> None:
    """Add ``probe`` and ``sts`` to the CLI's subparsers."""
    pr = sub.add_parser("probe", help="layer-wise linear probes with the Hewitt & Liang control task")
    add_model_options(pr)
    pr.add_argument("--task", required=True, metavar="FILE",
                    help="token task: a CoNLL-2003 / CoNLL-U file; sentence task: a .tsv/.csv/.jsonl with text and "
                         "label (docs/data-formats.md); 'demo' for the built-in POS set")
    pr.add_argument("--kind", required=True, choices=KINDS, help="what is labelled")
    add_task_column_options(pr)
    pr.add_argument("--pooling", choices=SENTENCE_POOLINGS, default="mean", help=POOLING_HELP)
    pr.add_argument("--seed", type=int, default=0, help="the held-out split and control labels (default 0)")
    handled_by(pr, cmd_probe)

    st = sub.add_parser("sts", help="sentence similarity per layer: Spearman's rho of cosines vs gold scores")
    add_model_options(st)
    st.add_argument("--data", required=True, metavar="FILE",
                    help="a .tsv/.csv/.jsonl with sentence1, sentence2 and score (GLUE's STS-B files as published); "
                         "'demo' for the built-in pairs")
    st.add_argument("--columns", metavar="A,B,SCORE",
                    help="the two sentence columns and the score column, if not sentence1,sentence2,score")
    add_tsv_quoting_option(st)
    st.add_argument("--pooling", choices=SENTENCE_POOLINGS, default="mean", help=POOLING_HELP)
    handled_by(st, cmd_sts)


def cmd_probe(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import probe
    from lm_workbench.probing.runs import ProbeRun

    computed = evaluated(ProbeRun(probe_spec_from_args(args)), args, probe)
    if computed is None:
        return 0
    data = computed.to_dict()
    print(f"{'layer':>5} {'accuracy':>9} {'control':>8} {'selectivity':>11}")
    for layer, a, c, s in zip(data["layers"], data["accuracy"], data["control_accuracy"], data["selectivity"]):
        print(f"{layer:>5} {_score(a, 9)} {_score(c, 8)} {_score(s, 11)}")
    print(f"majority class: {data['majority']:.3f}; {data['train_size']} training and {data['test_size']} held-out "
          f"rows (scored); run {data['run_id']}")
    return 0


def _score(value: Any, width: int) -> str:
    return f"{'not defined':>{width}}" if value is None else f"{value:>{width}.3f}"


def cmd_sts(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import sts
    from lm_workbench.probing.runs import StsRun

    computed = evaluated(StsRun(sts_spec_from_args(args)), args, sts)
    if computed is None:
        return 0
    data = computed.to_dict()
    print(f"{'layer':>5} {'spearman':>9}   ({data['pooling']} pooling, {data['pairs']} pairs)")
    for layer, rho in zip(data["layers"], data["spearman"]):
        print(f"{layer:>5} {_score(rho, 9)}")
    print(f"run {data['run_id']}")
    return 0

"""``scalar-mix``: which layers a task draws on, learned (ELMo's scalar mix over any model's layers).

``lm-workbench scalar-mix MODEL --task FILE --kind token|sentence --json``
trains ``gamma * sum_j softmax(s)_j h_j`` and a linear classifier on the
frozen layers (the task files of ``probe``; ``--task demo`` is the built-in
POS set) and prints::

    {"layers": [0, ..., L], "weights": [...], "gamma": g, "expected_layer": E,
     "accuracy": A, "steps": N, "run_id": R, ...}

``expected_layer`` is ``sum_j j * weights[j]`` (Tenney et al. 2019). The
result is recorded as a run of kind ``scalar-mix``.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.probing.names import KINDS
from lm_workbench.cli.common import add_model_options, add_task_column_options, execute_recorded, print_json, task_columns


def register(sub: Any) -> None:
    sm = sub.add_parser("scalar-mix", help="learn ELMo's scalar mix of a model's layers for a task")
    add_model_options(sm)
    sm.add_argument("--task", required=True, metavar="FILE",
                    help="as for probe: a CoNLL / CoNLL-U file, a .csv/.tsv with text and label, or 'demo'")
    sm.add_argument("--kind", required=True, choices=KINDS, help="what is labelled")
    add_task_column_options(sm)
    sm.add_argument("--pooling", choices=SENTENCE_POOLINGS, default="mean",
                    help="sentence vectors: mean of the tokens, the first token (cls) or the model's pooling")
    sm.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    sm.add_argument("--seed", type=int, default=0, help="the held-out split, initialisation and order (default 0)")
    sm.add_argument("--json", action="store_true", help="print JSON")
    sm.set_defaults(handler=cmd_scalar_mix)


def spec_from_args(args: argparse.Namespace) -> Any:
    """The checked ``ScalarMixSpec`` of a ``scalar-mix`` command line."""
    from lm_workbench.probing.spec import ScalarMixSpec

    return ScalarMixSpec(args.model, args.task, args.kind, args.pooling, args.seed, args.steps,
                         **task_columns(args)).checked()


def cmd_scalar_mix(args: argparse.Namespace) -> int:
    from lm_workbench.probing.scalar_mix_runs import ScalarMixRun

    mix, run_id, _ = execute_recorded(ScalarMixRun(spec_from_args(args)), args)
    if args.json:
        print_json({**mix.to_json(), "run_id": run_id})
        return 0
    print(f"{'layer':>5} {'weight':>7}")
    for layer, weight in zip(mix.layers, mix.result.weights):
        print(f"{layer:>5} {weight:>7.3f} {'#' * round(weight * 40)}")
    r = mix.result
    print(f"gamma {r.gamma:.3f}; expected layer {r.expected_layer:.2f}; held-out accuracy {r.accuracy:.3f}; run {run_id}")
    return 0

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
from lm_workbench.cli.common import add_model_options, add_task_column_options, evaluated, handled_by
from lm_workbench.command_results.compute_evaluations import (  # noqa: F401 - its name here
    scalar_mix_spec as spec_from_args,
)


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
    handled_by(sm, cmd_scalar_mix)


def cmd_scalar_mix(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import scalar_mix
    from lm_workbench.probing.scalar_mix_runs import ScalarMixRun

    computed = evaluated(ScalarMixRun(spec_from_args(args)), args, scalar_mix)
    if computed is None:
        return 0
    data = computed.to_dict()
    print(f"{'layer':>5} {'weight':>7}")
    for layer, weight in zip(data["layers"], data["weights"]):
        print(f"{layer:>5} {weight:>7.3f} {'#' * round(weight * 40)}")
    print(f"gamma {data['gamma']:.3f}; expected layer {data['expected_layer']:.2f}; held-out accuracy "
          f"{data['accuracy']:.3f}; run {data['run_id']}")
    return 0

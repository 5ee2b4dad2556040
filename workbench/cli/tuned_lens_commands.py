"""``tuned-lens``: train a tuned lens (Belrose et al. 2023) for a model on a corpus, as a recorded run.

``lm-workbench tuned-lens MODEL --corpus FILE [--steps N] [--out DIR] --json`` trains one affine translator
per layer through the one training loop, the model frozen, and saves them next to the model (or in ``--out``);
``lm-workbench lens MODEL --text T --tuned [DIR]`` then reads a text through both lenses. Progress goes to
stderr; the first Ctrl-C stops the loop (it saves a checkpoint, the run is marked cancelled).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.cli.common import EXIT_INTERRUPTED, add_model_options, echo, load_for, print_json

SUMMARY_KEYS = ("run_id", "model", "out_dir", "steps", "layers", "kl", "mean_kl")


def register(sub: Any) -> None:
    """Add ``tuned-lens`` to the CLI's subparsers."""
    p = sub.add_parser("tuned-lens", help="train a tuned lens: an affine translator per layer, the model frozen")
    add_model_options(p)
    p.add_argument("--corpus", required=True, nargs="+", metavar="FILE", help="text (.txt) or .jsonl files")
    p.add_argument("--steps", type=int, help="optimizer steps (default 250)")
    p.add_argument("--batch-size", type=int, help="token windows per step (default 4)")
    p.add_argument("--seq-len", type=int, help="tokens per window (default 128)")
    p.add_argument("--lr", type=float, help="peak learning rate (default 1e-3)")
    p.add_argument("--seed", type=int, help="seed of the window order and the held-out windows (default 0)")
    p.add_argument("--validation-windows", type=int, help="held-out windows the KL is measured on (default 8)")
    p.add_argument("--checkpoint-every", type=int, help="save a checkpoint every N steps (default: end, cancel)")
    p.add_argument("--out", metavar="DIR", help="where to save the translators (default: MODEL/tuned_lens, or "
                                                "the data folder when the model's folder is not writable)")
    p.add_argument("--name", help="a name for the run in the runs list")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=cmd_tuned_lens)


def spec_from_args(args: argparse.Namespace) -> Any:
    """The ``TunedLensSpec`` a ``tuned-lens`` command line describes."""
    from workbench.tuned_lens.spec import CONFIG_FLAGS, TunedLensSpec

    settings = {key: getattr(args, key) for key in CONFIG_FLAGS if getattr(args, key, None) is not None}
    return TunedLensSpec(model=args.model, corpus=list(args.corpus), out_dir=args.out, settings=settings,
                         name=args.name)


def cmd_tuned_lens(args: argparse.Namespace) -> int:
    from workbench.tuned_lens.job import run_recorded

    spec = spec_from_args(args)
    spec.check()
    loaded = load_for(args)
    summary = run_recorded(spec, loaded, echo=echo)
    if summary.get("cancelled"):
        print(f"{Path(sys.argv[0]).name}: cancelled at step {summary['steps']}; checkpoint saved in "
              f"{summary.get('checkpoint')}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print_json({k: summary.get(k) for k in SUMMARY_KEYS} | {k: v for k, v in summary.items() if k not in SUMMARY_KEYS})
        return 0
    width = max(len(n) for n in summary["layers"])
    print(f"run {summary['run_id']}: {summary['steps']} steps; translators in {summary['out_dir']}")
    print(f"{'':>{width}}  KL logit lens  tuned (before)  tuned (after)")
    kl = summary["kl"]
    for i, name in enumerate(summary["layers"]):
        print(f"{name:>{width}}  {kl['logit']['before'][i]:13.4f}  {kl['tuned']['before'][i]:14.4f}  "
              f"{kl['tuned']['after'][i]:13.4f}")
    return 0

"""``lens`` and ``tuned-lens``: the logit lens (and a tuned one) from the command line.

``lm-workbench lens MODEL --text T`` reads a text through the logit lens; ``tuned-lens`` trains a tuned lens
(Belrose et al. 2023) for a model on a corpus, as a recorded run:
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

from lm_workbench.cli.common import add_model_options, echo, handled_by, load_for, positive_k, print_json


def register(sub: Any) -> None:
    """Add ``lens`` and ``tuned-lens`` to the CLI's subparsers."""
    lens = sub.add_parser("lens", help="logit lens: the top token of every layer at every position")
    add_model_options(lens)
    lens.add_argument("--text", required=True, help="the text")
    lens.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    lens.add_argument("--k", type=int, default=1, help="candidates per cell (default 1)")
    lens.add_argument("--tuned", nargs="?", const="", metavar="DIR",
                      help="also read the text through a tuned lens (its folder; alone: the one trained for MODEL "
                           "with 'tuned-lens'); adds tuned, kl_logit and kl_tuned (KL to the output per layer)")
    handled_by(lens, cmd_lens)

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
    handled_by(p, cmd_tuned_lens, json_help="print the summary as JSON")


def spec_from_args(args: argparse.Namespace) -> Any:
    """The checked ``TunedLensSpec`` a ``tuned-lens`` command line describes (``compute_training.tuned_lens_spec``)."""
    from lm_workbench.command_results.compute_training import tuned_lens_spec

    return tuned_lens_spec(args)


def cmd_tuned_lens(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_training import tuned_lens

    spec = spec_from_args(args)  # a bad setting fails before the model loads
    result = tuned_lens(args, load_for(args), spec=spec, echo=echo)
    summary = result.to_dict()
    if result.cancelled:
        print(f"{Path(sys.argv[0]).name}: cancelled at step {summary['steps']}; checkpoint saved in "
              f"{summary.get('checkpoint')}", file=sys.stderr)
        return result.exit_code
    if args.json:
        print_json(summary)
        return 0
    width = max(len(n) for n in summary["layers"])
    print(f"run {summary['run_id']}: {summary['steps']} steps; translators in {summary['out_dir']}")
    print(f"{'':>{width}}  KL logit lens  tuned (before)  tuned (after)")
    kl = summary["kl"]
    for i, name in enumerate(summary["layers"]):
        print(f"{name:>{width}}  {kl['logit']['before'][i]:13.4f}  {kl['tuned']['before'][i]:14.4f}  "
              f"{kl['tuned']['after'][i]:13.4f}")
    return 0


def cmd_lens(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import lens
    from lm_workbench.requests import request_of

    positive_k(args.k)  # before the model loads
    computed = lens(request_of(args), load_for(args))
    if args.json:
        print_json(computed.to_dict())
    elif args.tuned is not None:
        both = computed.engine_result
        tuned = both.tuned
        width = max(len(n) for n in tuned.layer_names)
        print(f"{'':>{width}}  KL logit  KL tuned  tuned lens top tokens")
        for i, (name, row) in enumerate(zip(tuned.layer_names, tuned.top)):
            tops = " ".join(f"{c[0].token[:6]:>6} {c[0].prob:.2f}" for c in row)
            print(f"{name:>{width}}  {both.kl_logit[i]:8.4f}  {both.kl_tuned[i]:8.4f}  {tops}")
    else:
        table = computed.engine_result
        width = max(len(n) for n in table.layer_names)
        print(" " * width + "  " + " ".join(f"{t[:10]:>12}" for t in table.tokens))
        for name, row in zip(table.layer_names, table.top):
            print(f"{name:>{width}}  " + " ".join(f"{c[0].token[:6]:>6} {c[0].prob:.2f}" for c in row))
    return 0

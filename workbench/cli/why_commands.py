"""``attribute`` and ``patch``: why a model predicts what it does (attributions, activation patching)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.attribution.names import DEFAULT_STEPS, GRAD_INPUT, METHODS
from workbench.cli.common import add_model_options, drive_job, load_for, print_json


def register(sub: Any) -> None:
    """Add ``attribute`` and ``patch`` to the CLI's subparsers."""
    att = sub.add_parser("attribute", help="which input tokens a prediction rests on (decoders: the next token; "
                                           "masked LMs: the masked token)")
    add_model_options(att)
    att.add_argument("--text", required=True,
                     help="decoders: the prompt; masked LMs: a text with one [MASK] (or the model's mask token)")
    att.add_argument("--target", help="the predicted token to explain, one vocabulary token (default: the model's "
                                      "top token)")
    att.add_argument("--method", choices=METHODS, default=GRAD_INPUT, help=f"default {GRAD_INPUT}")
    att.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                     help=f"integrated gradients: intervals along the path (default {DEFAULT_STEPS})")
    att.add_argument("--json", action="store_true", help="print JSON")
    att.set_defaults(handler=cmd_attribute)


def cmd_attribute(args: argparse.Namespace) -> int:
    from engine.attribution.attribute import attribute_steps

    loaded = load_for(args)
    result = drive_job(attribute_steps(loaded, args.text, args.method, args.target, args.steps), quiet=True)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"{result.method}: target {result.target!r} (id {result.target_id}) at position {result.position}, "
          f"logit {result.target_logit:.4f}")
    if result.completeness_gap is not None:
        print(f"baseline logit {result.baseline_logit:.4f}, completeness gap {result.completeness_gap:+.2e} "
              f"({result.steps} steps)")
    width = max(len(t) for t in result.tokens)
    for i, (token, score) in enumerate(zip(result.tokens, result.scores)):
        print(f"{i:>4}  {token:<{width}}  {score:+.5f}")
    return 0

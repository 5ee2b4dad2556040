"""``dla`` and ``ablate``: which heads and MLPs move a prediction (the window's Heads tab).

``dla`` splits logit(target) − logit(contrast) at the predicted position into the embeddings', each attention
head's and each MLP's direct share through the final norm (its scale frozen at this run), for pre-norm models
(GPT-2, Llama-style decoders, the T5 decoder); a post-norm BERT or BART gets one line saying the split is not a
sum. ``ablate`` takes heads (``--heads L.H,...`` together, or ``--all-heads`` one at a time) or MLPs
(``--mlps L,...``) out by zero, mean or resample ablation and reports the metric before and after.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import add_model_options, on_model

HOWS = ("zero", "mean", "resample")  # lm_workbench.engine.heads.names.HOWS (checked by a test)


def _prediction_options(p: argparse.ArgumentParser, target_required: bool) -> None:
    p.add_argument("--text", required=True,
                   help="decoders: the prompt; masked LMs: a text with one [MASK]; encoder-decoders: the input")
    p.add_argument("--target", required=target_required,
                   help="the predicted token X, one vocabulary token" + ("" if target_required else
                                                                         " (default: the model's top token)"))
    p.add_argument("--contrast", metavar="Y", help="a foil, one vocabulary token: the metric becomes "
                                                   "logit(X) - logit(Y)")
    p.add_argument("--output-position", type=int, default=0,
                   help="encoder-decoders: the output token, after the model's own greedy output (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON")


def register(sub: Any) -> None:
    """Add ``dla`` and ``ablate`` to the CLI's subparsers."""
    dla = sub.add_parser("dla", help="direct logit attribution: the logit (difference) split into the embeddings, "
                                     "each attention head and each MLP (pre-norm models: GPT-2, Llama-style, T5)")
    add_model_options(dla)
    _prediction_options(dla, target_required=False)
    dla.set_defaults(handler=cmd_dla)
    abl = sub.add_parser("ablate", help="take attention heads or MLPs out (zero, mean or resample ablation) and "
                                        "see logit(X) (- logit(Y)) move")
    add_model_options(abl)
    _prediction_options(abl, target_required=True)
    which = abl.add_mutually_exclusive_group()
    which.add_argument("--heads", metavar="L.H,...",
                       help="heads ablated together (layer.head from 0; an encoder-decoder's cross-attention: xL.H)")
    which.add_argument("--all-heads", action="store_true",
                       help="every head alone, in turn: ablated_metric is [layer][head]")
    abl.add_argument("--mlps", metavar="L,...", help="MLPs (by layer) ablated together (with --heads: all together)")
    abl.add_argument("--how", choices=HOWS, default="zero",
                     help="zero: the head's output before the output projection (an MLP's output) set to 0; mean: "
                          "its mean over --corpus's tokens; resample: its value at a random --corpus token (seeded)")
    abl.add_argument("--corpus", metavar="F", help="mean and resample: a text file, one text a line")
    abl.add_argument("--seed", type=int, default=0, help="resample: the draws' seed (default 0)")
    abl.set_defaults(handler=cmd_ablate)


def cmd_dla(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import dla

    computed = on_model(args, dla)
    if computed is None:
        return 0
    result = computed.engine_result
    metric = f"logit({result.target})" + (f" - logit({result.contrast})" if result.contrast else "")
    print(f"{metric} at position {result.position}: {result.total:.4f}; {result.note}")
    print(f"embeddings {result.embed:+.4f}, biases {result.bias:+.4f}, approximation gap "
          f"{result.approximation_gap:+.2e}")
    print("attention heads (rows: " + ("layers" if len(result.rows) == result.layers else "layer, self / cross")
          + "; columns: heads), then the MLP")
    print("        " + " ".join(f"{h:>8}" for h in range(result.heads)) + "       mlp")
    per_layer = len(result.rows) // result.layers
    for i, (name, row) in enumerate(zip(result.rows, result.attn)):
        mlp = f"  {result.mlp[i // per_layer]:+8.4f}" if i % per_layer == per_layer - 1 else ""
        print(f"{name:>7} " + " ".join(f"{v:+8.4f}" for v in row) + mlp)
    return 0


def cmd_ablate(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import ablate, check_ablate
    from lm_workbench.requests import request_of

    request = request_of(args)
    check_ablate(request)  # before the model loads
    computed = on_model(args, ablate, request, quiet=args.json)
    if computed is None:
        return 0
    result = computed.engine_result
    metric = f"logit({result.target})" + (f" - logit({result.contrast})" if result.contrast else "")
    print(f"{metric} at position {result.position}: clean {result.clean_metric:.4f} ({args.how} ablation)")
    if args.all_heads:
        print("each head ablated alone (rows: attention rows, columns: heads): the metric")
        for name, row in zip(result.rows, result.ablated_metric):
            print(f"{name:>7} " + " ".join(f"{v:8.4f}" for v in row))
    else:
        print(f"with {', '.join(result.ablated)} ablated: {result.ablated_metric:.4f} "
              f"(change {result.ablated_metric - result.clean_metric:+.4f})")
    return 0

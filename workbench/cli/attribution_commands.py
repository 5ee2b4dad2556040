"""``attribute``: which input tokens a prediction rests on (the window's Explain, the README's "Why").

``--attention-layer L`` adds the raw attention row the window's Explain strip shows under the tokens
(``lm_workbench.attribution.attention``) under the JSON key ``attention``: ``{"layer": L, "weights": [...]}``.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.attribution.names import DEFAULT_STEPS, GRAD_INPUT, METHODS
from lm_workbench.cli.common import add_model_options, handled_by, on_model


def register(sub: Any) -> None:
    """Add ``attribute`` to the CLI's subparsers."""
    att = sub.add_parser("attribute", help="which input tokens a prediction rests on (decoders: the next token; "
                                           "masked LMs: the masked token; encoder-decoders: an output token)")
    add_model_options(att)
    att.add_argument("--text", required=True,
                     help="decoders: the prompt; masked LMs: a text with one [MASK] (or the model's mask token)")
    att.add_argument("--target", help="the predicted token to explain, one vocabulary token (default: the model's "
                                      "top token)")
    att.add_argument("--contrast", metavar="TOKEN",
                     help="why the target and not TOKEN (one vocabulary token): the scores explain logit(target) - "
                          "logit(TOKEN); JSON adds contrast, contrast_id, contrast_logit (target_logit stays the "
                          "target's; integrated gradients' baseline_logit and completeness_gap refer to the "
                          "difference); not for rollout or flow, which do not depend on the target")
    att.add_argument("--output-position", type=int, default=0,
                     help="encoder-decoders: the output token to explain, after the model's own greedy output "
                          "before it (default 0, the first)")
    att.add_argument("--method", choices=METHODS, default=GRAD_INPUT, help=f"default {GRAD_INPUT}")
    att.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                     help=f"integrated gradients: intervals along the path (default {DEFAULT_STEPS})")
    att.add_argument("--attention-layer", type=int, metavar="L",
                     help="also the raw attention of layer L at the predicted position, mean over heads, as the "
                          "window's Explain strip shows it under the tokens (negative: from the top, -1 the last; "
                          "encoder-decoders: that decoder layer's cross-attention); JSON key attention")
    handled_by(att, cmd_attribute)


def cmd_attribute(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import attribute, check_attribute
    from lm_workbench.requests import request_of

    request = request_of(args)
    check_attribute(request)  # rollout and flow refuse a contrast before the model loads
    computed = on_model(args, attribute, request)
    if computed is None:
        return 0
    result, attention = computed.engine_result
    print(f"{result.method}: target {result.target!r} (id {result.target_id}) at position {result.position}, "
          f"logit {result.target_logit:.4f}")
    if result.contrast_id is not None:
        print(f"instead of {result.contrast!r} (id {result.contrast_id}), logit {result.contrast_logit:.4f}: the "
              f"scores explain the difference {result.metric:.4f}")
    if result.completeness_gap is not None:
        print(f"baseline {'difference' if result.contrast_id is not None else 'logit'} {result.baseline_logit:.4f}, completeness gap {result.completeness_gap:+.2e} "
              f"({result.steps} steps)")
    weights = attention["weights"] if attention is not None else None
    if attention is not None:
        print(f"attention: layer {attention['layer']} at the predicted position, mean over heads"
              if weights is not None else "attention: this model returns no attention weights")
    width = max(len(t) for t in result.tokens)
    for i, (token, score) in enumerate(zip(result.tokens, result.scores)):
        extra = f"  {weights[i]:.4f}" if weights is not None and i < len(weights) else ""
        print(f"{i:>4}  {token:<{width}}  {score:+.5f}{extra}")
    return 0

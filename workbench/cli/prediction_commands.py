"""``attention``, ``fill-mask``, ``next-token`` and ``lens``: what a model attends to and predicts."""

from __future__ import annotations

import argparse
import json
from typing import Callable

from engine.errors import WorkbenchError
from workbench.cli.commands import load_for


def _positive_k(k: int) -> int:
    if k < 1:
        raise WorkbenchError(f"--k must be at least 1, not {k}")
    return k


def cmd_attention(args: argparse.Namespace) -> int:
    from engine.analysis import encode
    from engine.attention import AttentionKind, attention_matrix, attention_side, hide_special

    loaded = load_for(args)
    if args.kind != "encoder" and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--kind {args.kind} is for encoder-decoders; {args.model} is a {loaded.info.family}")
    result = encode(loaded, args.text, pair=args.pair, target=args.target, attentions=True)
    side = attention_side(result, AttentionKind(args.kind))
    weights = attention_matrix(side, args.layer, [args.head])[0]
    queries, keys = side.query_tokens, side.key_tokens
    if args.hide_special:
        weights, q_keep, k_keep = hide_special(weights, side.query_special, side.key_special)
        queries, keys = [queries[i] for i in q_keep], [keys[i] for i in k_keep]
    if args.json:
        data = {"tokens": queries, "weights": weights.tolist(), "layer": args.layer, "head": args.head,
                "kind": args.kind}
        if keys != queries:
            data["key_tokens"] = keys
        print(json.dumps(data))
    else:
        width = max(len(t) for t in queries + keys)
        print(" " * width + " " + " ".join(f"{t[:6]:>6}" for t in keys))
        for token, row in zip(queries, weights):
            print(f"{token:>{width}} " + " ".join(f"{w:6.3f}" for w in row))
    return 0


def cmd_fill_mask(args: argparse.Namespace) -> int:
    from engine.predictions import fill_mask

    k = _positive_k(args.k)
    tok, predictions = fill_mask(load_for(args), args.text, k)
    if args.json:
        print(json.dumps({"tokens": tok.tokens, "masks": [p.to_dict() for p in predictions]}))
    else:
        for p in predictions:
            print(f"position {p.position}: " + ", ".join(f"{c.token} {c.prob:.3f}" for c in p.candidates))
    return 0


def cmd_next_token(args: argparse.Namespace) -> int:
    from engine.predictions import next_token

    candidates = next_token(load_for(args), args.text, _positive_k(args.k))
    if args.json:
        print(json.dumps({"candidates": [c.to_dict() for c in candidates]}))
    else:
        for c in candidates:
            print(f"{c.prob:.4f}  {c.id:>6}  {c.token}")
    return 0


def cmd_lens(args: argparse.Namespace) -> int:
    from engine.logit_lens import logit_lens

    table = logit_lens(load_for(args), args.text, target=args.target, k=_positive_k(args.k))
    if args.json:
        print(json.dumps(table.to_dict()))
    else:
        width = max(len(n) for n in table.layer_names)
        print(" " * width + "  " + " ".join(f"{t[:10]:>12}" for t in table.tokens))
        for name, row in zip(table.layer_names, table.top):
            print(f"{name:>{width}}  " + " ".join(f"{c[0].token[:6]:>6} {c[0].prob:.2f}" for c in row))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "attention": cmd_attention,
    "fill-mask": cmd_fill_mask,
    "next-token": cmd_next_token,
    "lens": cmd_lens,
}

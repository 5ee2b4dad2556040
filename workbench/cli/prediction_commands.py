"""``attention``, ``fill-mask``, ``next-token`` and ``lens``: what a model attends to and predicts."""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli.common import add_model_options, load_for, positive_k, print_json


def register(sub: Any) -> None:
    """Add ``attention``, ``fill-mask``, ``next-token`` and ``lens`` to the CLI's subparsers."""
    att = sub.add_parser("attention", help="one head's attention weights for a text")
    add_model_options(att)
    att.add_argument("--text", required=True, help="the text")
    att.add_argument("--pair", help="a second segment (sentence pair)")
    att.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    att.add_argument("--kind", choices=["encoder", "decoder", "cross"], default="encoder",
                     help="encoder-decoders: which attention (default: encoder self-attention)")
    att.add_argument("--layer", type=int, required=True, help="layer, from 0")
    att.add_argument("--head", type=int, required=True, help="head, from 0")
    att.add_argument("--hide-special", action="store_true", help="drop special tokens and renormalise rows")
    att.add_argument("--json", action="store_true", help="print JSON (the default output is a table)")
    att.set_defaults(handler=cmd_attention)

    fill = sub.add_parser("fill-mask", help="top-k tokens for every [MASK] (models with an MLM head)")
    add_model_options(fill)
    fill.add_argument("--text", required=True, help="text with [MASK] (or the model's own mask token)")
    fill.add_argument("--k", type=int, default=5, help="candidates per mask (default 5)")
    fill.add_argument("--json", action="store_true", help="print JSON")
    fill.set_defaults(handler=cmd_fill_mask)

    nxt = sub.add_parser("next-token", help="top-k next tokens after a text (decoders)")
    add_model_options(nxt)
    nxt.add_argument("--text", required=True, help="the prompt")
    nxt.add_argument("--k", type=int, default=5, help="candidates (default 5)")
    nxt.add_argument("--json", action="store_true", help="print JSON")
    nxt.set_defaults(handler=cmd_next_token)

    lens = sub.add_parser("lens", help="logit lens: the top token of every layer at every position")
    add_model_options(lens)
    lens.add_argument("--text", required=True, help="the text")
    lens.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    lens.add_argument("--k", type=int, default=1, help="candidates per cell (default 1)")
    lens.add_argument("--tuned", nargs="?", const="", metavar="DIR",
                      help="also read the text through a tuned lens (its folder; alone: the one trained for MODEL "
                           "with 'tuned-lens'); adds tuned, kl_logit and kl_tuned (KL to the output per layer)")
    lens.add_argument("--json", action="store_true", help="print JSON")
    lens.set_defaults(handler=cmd_lens)


def cmd_attention(args: argparse.Namespace) -> int:
    from engine.analysis import encode
    from engine.attention import AttentionKind, attention_matrix, attention_side, hide_special
    from engine.errors import WorkbenchError

    loaded = load_for(args)
    if loaded.info.family == "biLM":
        raise WorkbenchError(f"{args.model} is an LSTM language model (ELMo): it has no attention; "
                             "'encode' gives its layers")
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
        print_json(data)
    else:
        width = max(len(t) for t in queries + keys)
        print(" " * width + " " + " ".join(f"{t[:6]:>6}" for t in keys))
        for token, row in zip(queries, weights):
            print(f"{token:>{width}} " + " ".join(f"{w:6.3f}" for w in row))
    return 0


def cmd_fill_mask(args: argparse.Namespace) -> int:
    from engine.predictions import fill_mask

    k = positive_k(args.k)
    tok, predictions = fill_mask(load_for(args), args.text, k)
    if args.json:
        print_json({"tokens": tok.tokens, "masks": [p.to_dict() for p in predictions]})
    else:
        for p in predictions:
            print(f"position {p.position}: " + ", ".join(f"{c.token} {c.prob:.3f}" for c in p.candidates))
    return 0


def cmd_next_token(args: argparse.Namespace) -> int:
    from engine.predictions import next_token

    candidates = next_token(load_for(args), args.text, positive_k(args.k))
    if args.json:
        print_json({"candidates": [c.to_dict() for c in candidates]})
    else:
        for c in candidates:
            print(f"{c.prob:.4f}  {c.id:>6}  {c.token}")
    return 0


def cmd_lens(args: argparse.Namespace) -> int:
    from engine.logit_lens import logit_lens

    if args.tuned is not None:
        return _tuned_lens(args)
    table = logit_lens(load_for(args), args.text, target=args.target, k=positive_k(args.k))
    if args.json:
        print_json(table.to_dict())
    else:
        width = max(len(n) for n in table.layer_names)
        print(" " * width + "  " + " ".join(f"{t[:10]:>12}" for t in table.tokens))
        for name, row in zip(table.layer_names, table.top):
            print(f"{name:>{width}}  " + " ".join(f"{c[0].token[:6]:>6} {c[0].prob:.2f}" for c in row))
    return 0



def _tuned_lens(args: argparse.Namespace) -> int:
    """``lens --tuned``: the logit lens's table and keys, plus the tuned lens's table and both KL curves."""
    from engine.errors import WorkbenchError
    from engine.tuned_lens.lens import read_both
    from engine.tuned_lens.translators import load_translators
    from workbench.tuned_lens.files import find_translators

    k = positive_k(args.k)
    loaded = load_for(args)
    folder = args.tuned or find_translators(loaded.info.folder)
    if folder is None:
        raise WorkbenchError(f"no tuned lens for {args.model} yet: train one with 'lm-workbench tuned-lens "
                             f"{args.model} --corpus FILE', or name its folder after --tuned")
    translators = load_translators(folder, count=loaded.info.layers, hidden=loaded.info.hidden_size)
    both = read_both(loaded, args.text, translators, target=args.target, k=k)
    if args.json:
        print_json(both.logit.to_dict() | both.to_dict() | {"tuned_folder": str(folder)})
        return 0
    tuned = both.tuned
    assert tuned is not None
    width = max(len(n) for n in tuned.layer_names)
    print(f"{'':>{width}}  KL logit  KL tuned  tuned lens top tokens")
    for i, (name, row) in enumerate(zip(tuned.layer_names, tuned.top)):
        tops = " ".join(f"{c[0].token[:6]:>6} {c[0].prob:.2f}" for c in row)
        print(f"{name:>{width}}  {both.kl_logit[i]:8.4f}  {both.kl_tuned[i]:8.4f}  {tops}")
    return 0

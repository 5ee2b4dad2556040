"""``sae train|eval|features|show`` and ``steer``: sparse autoencoders and steering vectors (issue 47;
docs/sae-and-steering.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lm_workbench.cli.common import add_model_options, echo, handled_by, load_for, note, on_model, print_json



def _model_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="the model the SAE reads (any spec the model box takes)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where to run (default: settings, auto)")
    p.add_argument("--precision", choices=["auto", "float32", "bfloat16", "float16"],
                   help="weights' number format (default: settings, auto)")
    p.add_argument("--offline", action="store_true", default=None, help="never contact the hub")


def register(sub: Any) -> None:
    """Add ``sae`` (train, eval, features, show, search) and ``steer``."""
    sae = sub.add_parser("sae", help="sparse autoencoders: train one on a hook point, evaluate it, read its features")
    actions = sae.add_subparsers(dest="sae_action", metavar="ACTION", required=True)
    sae.set_defaults(handler=cmd_sae)  # each action binds its own handler too; this one dispatches by name

    train = actions.add_parser("train", help="train an SAE on a site's activations over a corpus (a recorded run)")
    add_model_options(train)
    train.add_argument("--site", help="the hook point (docs/model-anatomy.md), e.g. blocks.2.hook_resid_post "
                                      "(default: the middle block's hook_resid_post; encoder-decoders: the decoder's)")
    train.add_argument("--corpus", required=True, help="a UTF-8 text file, one text per line")
    train.add_argument("--out", required=True, help="the SAE folder to write (SAELens v6 layout)")
    train.add_argument("--kind", choices=["standard", "topk", "jumprelu"], default="topk",
                       help="standard: ReLU + L1; topk: the k largest; jumprelu: per-feature thresholds + L0 "
                            "(default topk)")
    train.add_argument("--expansion", type=int, default=8, help="d_sae = expansion x the site's width (default 8)")
    train.add_argument("--sparsity", type=float,
                       help="the kind's setting: standard the L1 coefficient (default 5), topk k (default 32), "
                            "jumprelu the L0 coefficient (default 0.001)")
    train.add_argument("--steps", type=int, default=200, help="optimizer steps (default 200)")
    train.add_argument("--batch", type=int, default=256, help="activations (tokens) per step (default 256)")
    train.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (default 0.001)")
    train.add_argument("--buffer-tokens", type=int, default=4096,
                       help="the shuffled activation buffer, in tokens (memory: tokens x width x 4 bytes; default "
                            "4096)")
    train.add_argument("--context", type=int, default=64, help="tokens per text at most (default 64)")
    train.add_argument("--seed", type=int, default=0, help="the seed (default 0)")
    train.add_argument("--checkpoint-every", type=int, default=100, help="steps between checkpoints (default 100)")
    train.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    train.add_argument("--name", help="the run's name in the runs browser")
    handled_by(train, cmd_sae_train)

    ev = actions.add_parser("eval", help="L0, explained variance, MSE, CE loss recovered, KL, dead and dense fractions")
    ev.add_argument("sae_dir", help="an SAE folder (cfg.json + sae_weights.safetensors)")
    _model_flag(ev)
    ev.add_argument("--corpus", required=True, help="a UTF-8 text file, one text per line")
    ev.add_argument("--max-tokens", type=int, default=4096, help="tokens evaluated at most (default 4096)")
    handled_by(ev, cmd_sae_eval)

    feats = actions.add_parser("features", help="the features active on a text, strongest first (token x feature)")
    feats.add_argument("sae_dir", help="an SAE folder")
    _model_flag(feats)
    feats.add_argument("--text", required=True, help="the text")
    feats.add_argument("--top", type=int, default=10, help="features shown (default 10)")
    handled_by(feats, cmd_sae_features)

    show = actions.add_parser("show", help="one feature: top contexts, histogram, density, logit effect")
    show.add_argument("sae_dir", help="an SAE folder")
    _model_flag(show)
    show.add_argument("--feature", type=int, required=True, help="the feature's number")
    show.add_argument("--corpus", required=True, help="a UTF-8 text file, one text per line")
    show.add_argument("--contexts", type=int, default=10, help="top contexts (default 10)")
    show.add_argument("--max-tokens", type=int, default=20000, help="corpus tokens read at most (default 20000)")
    handled_by(show, cmd_sae_show)

    search = actions.add_parser("search", help="features by a token: those whose logit effect promotes it most, and "
                                               "(with --corpus) those whose strongest context peaks on it")
    search.add_argument("sae_dir", help="an SAE folder")
    _model_flag(search)
    search.add_argument("--token", required=True, help="the token, as typed (' list' and 'list' differ); a text of "
                                                       "several tokens is searched by its first (said)")
    search.add_argument("--corpus", help="a UTF-8 text file, one text per line: also list the features firing on the "
                                         "token")
    search.add_argument("--top", type=int, default=10, help="features listed per kind (default 10)")
    search.add_argument("--max-tokens", type=int, default=20000, help="corpus tokens read at most (default 20000)")
    handled_by(search, cmd_sae_search)

    steer = sub.add_parser("steer", help="add a vector at a site while the model predicts (and generates): steered "
                                         "beside unsteered")
    add_model_options(steer)
    steer.add_argument("--text", required=True, help="the text (encoders: with one [MASK])")
    steer.add_argument("--site", required=True, help="the hook point, e.g. blocks.1.hook_resid_post")
    steer.add_argument("--vector", help="a steering vector file (safetensors: 'vector' + its site)")
    steer.add_argument("--feature", help="SAE_DIR:IDX: a feature's unit decoder direction")
    steer.add_argument("--pairs", help="contrastive pairs: lines 'positive<TAB>negative' or JSON "
                                       "{\"positive\": [...], \"negative\": [...]}: mean activation difference at "
                                       "the last non-special token")
    steer.add_argument("--strength", type=float, required=True, help="the multiple of the vector added")
    steer.add_argument("--generate", type=int, default=0, help="also generate N tokens greedily, each side")
    steer.add_argument("--top", type=int, default=5, help="top predictions per side (default 5)")
    steer.add_argument("--save-vector", help="write the vector used (safetensors, with its site and provenance)")
    steer.add_argument("--grid", action="store_true",
                       help="a layer x strength grid: the direction at the same site of every block, each cell's "
                            "concept score and KL to the unsteered model")
    steer.add_argument("--grid-layers", type=int, nargs="+", help="the grid's blocks (default: every block)")
    steer.add_argument("--grid-strengths", type=float, nargs="+",
                       help="the grid's strengths (default: -1, 0, 0.5, 1, 2, 4 x --strength)")
    steer.add_argument("--concept", help="comma-separated words whose logit gain is the concept score (default "
                                         "with --feature: the 3 tokens it promotes most)")
    handled_by(steer, cmd_steer)


def spec_from_args(args: argparse.Namespace) -> Any:
    """The ``SaeTrainSpec`` a ``sae train`` command line describes (``compute_training.sae_train_spec``)."""
    from lm_workbench.command_results.compute_training import sae_train_spec
    from lm_workbench.requests import request_of

    return sae_train_spec(request_of(args))


def cmd_sae_train(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_training import checked_sae_train, sae_train, sae_train_spec
    from lm_workbench.requests import request_of

    request = request_of(args)
    spec = checked_sae_train(sae_train_spec(request))  # a bad setting or a missing corpus fails before the model loads
    result = sae_train(request, load_for(request), spec=spec, echo=None if args.json else echo)
    summary = result.to_dict()
    if summary.get("cancelled"):
        print(f"{Path(sys.argv[0]).name}: cancelled at step {summary['steps']}; checkpoint in {spec.out} (continue "
              "with --resume)", file=sys.stderr)
        return result.exit_code
    if args.json:
        print_json(summary)
        return 0
    final = summary["final"]
    print(f"run {summary['run_id']}: {summary['kind']} SAE {summary['d_in']} -> {summary['d_sae']} on "
          f"{summary['site']}, {summary['steps']} steps; saved in {summary['out_dir']}")
    print(f"final MSE {final.get('mse', float('nan')):.4f}, L0 {final.get('l0', float('nan')):.1f}, dead fraction "
          f"{final.get('dead_fraction', float('nan')):.3f}; activations scaled by {summary['scaling_factor']:.4f} "
          f"(mean norm -> sqrt(d)); buffer {summary['buffer_tokens']} tokens = {summary['buffer_bytes'] / 2**20:.1f} "
          "MiB in memory")
    return 0


def _on_corpus(args: argparse.Namespace, compute: Any, check: Any = None) -> tuple[Any, Any]:
    """``(request, computed)``: ``compute`` run on the model over the request's corpus (``--corpus``; none when
    it is optional and not given), read, and checked by ``check(request)``, before the model loads."""
    from lm_workbench.engine.sae.activations import read_corpus
    from lm_workbench.requests import request_of

    request = request_of(args)
    if check is not None:
        check(request)
    lines = read_corpus(request.corpus) if request.corpus is not None else None
    return request, on_model(args, compute, request, lines=lines, quiet=args.json)


def cmd_sae_eval(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_sae import EVAL_KEYS, sae_eval
    from lm_workbench.engine.maths.undefined import shown

    _, computed = _on_corpus(args, sae_eval)
    if computed is None:
        return 0
    data = computed.to_dict()
    for key in EVAL_KEYS:
        print(f"{key:>20}  {shown(data[key], key, data['notes'])}")
    for line in data["notes"]:
        note(line)
    return 0


def cmd_sae_features(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_sae import sae_features

    computed = on_model(args, sae_features)
    if computed is None:
        return 0
    data = computed.to_dict()
    print("feature  " + " ".join(f"{t[:7]:>7}" for t in data["tokens"]))
    for column, feature in enumerate(data["features"]):
        print(f"{feature:>7}  " + " ".join(f"{row[column]:7.3f}" for row in data["values"]))
    return 0


def cmd_sae_show(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_sae import sae_show

    _, computed = _on_corpus(args, sae_show)
    if computed is None:
        return 0
    data = computed.to_dict()
    stats, corpus = computed.engine_result
    print(f"feature {stats.feature}: density {stats.density:.4f}, max activation {stats.max_activation:.4f} over "
          f"{corpus.tokens} tokens")
    for ctx in stats.contexts:
        words = "".join(f"[{t}]" if i == ctx.peak else t for i, t in enumerate(ctx.tokens))
        print(f"  {ctx.activation:8.4f}  {words!r}")
    effect = data["logit_effect"]
    if effect:
        print("promotes: " + ", ".join(repr(e["token"]) for e in effect["promoted"]))
        print("suppresses: " + ", ".join(repr(e["token"]) for e in effect["suppressed"]))
    for line in data["notes"]:
        note(line)
    return 0


def cmd_sae_search(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_sae import check_sae_search, sae_search

    request, computed = _on_corpus(args, sae_search, check_sae_search)
    if computed is None:
        return 0
    data = computed.to_dict()
    first = computed.engine_result[0]
    found = [(p["feature"], p["effect"]) for p in data["promoting"]]
    print(f"promoting {first!r}: " + (", ".join(f"{f} ({e:+.3f})" for f, e in found) or "none"))
    if data["firing"] is not None:
        print(f"firing on {request.token!r}: " + (", ".join(map(str, data["firing"])) or "none in the corpus read"))
    for line in data["notes"]:
        note(line)
    return 0


def cmd_steer(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_steer import check_steer, steer
    from lm_workbench.requests import request_of

    request = request_of(args)
    check_steer(request)  # before the model loads
    result = on_model(args, steer, request, quiet=args.json)
    if result is None:
        return 0
    data = result.to_dict()
    if request.grid:
        _print_grid(data)
        return 0
    print(f"{data['vector']} x {request.strength:g} at {request.site}; predictions of {data['position']}; "
          f"KL(unsteered || steered) {data['kl']:.4f} nats")
    for name in ("unsteered", "steered"):
        side = data[name]
        print(f"{name:>10}: " + ", ".join(f"{c['token']!r} {c['probability']:.3f}" for c in side["top"]))
        if side.get("generation") is not None:
            print(f"{'':>10}  generates {side['generation']!r}")
    for line in data["notes"]:
        note(line)
    return 0


def _print_grid(data: dict[str, Any]) -> None:
    print(f"{data['vector']} at {data['site']}; concept tokens {data['concept_tokens']}")
    print(f"{'layer':>5} {'strength':>9} {'concept':>9} {'KL':>9}  top / text")
    for row in data["grid"]:
        score = "-" if row["concept_score"] is None else f"{row['concept_score']:.3f}"
        kl = "-" if row["kl"] is None else f"{row['kl']:.4f}"
        print(f"{row['layer']:>5} {row['strength']:>9g} {score:>9} {kl:>9}  {row['top_token']!r}"
              + (f" {row['text']!r}" if row["text"] is not None else ""))
    for line in data["notes"]:
        note(line)


def cmd_sae(args: argparse.Namespace) -> int:
    """``lm-workbench sae ACTION``: the action's handler."""
    handlers = {"train": cmd_sae_train, "eval": cmd_sae_eval, "features": cmd_sae_features, "show": cmd_sae_show,
                "search": cmd_sae_search}
    return handlers[args.sae_action](args)

"""``patch``: activation patching (causal tracing) from the command line, as the Patching tab runs it."""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.patching.names import ALL_SITES, DEFAULT_NOISE_SAMPLES, DEFAULT_NOISE_SCALE, DEFAULT_SITE
from lm_workbench.cli.common import add_model_options, handled_by, load_for, print_json


def register(sub: Any) -> None:
    """Add ``patch`` to the CLI's subparsers."""
    pat = sub.add_parser("patch", help="activation patching (causal tracing): restore one layer's activation at one "
                                       "position from a clean run into a corrupted one, for every layer and position")
    add_model_options(pat)
    pat.add_argument("--clean", required=True, help="the clean text (masked LMs: with one [MASK]; encoder-decoders: "
                                                    "the encoder's input)")
    pat.add_argument("--corrupt", help="the corrupted text, as many tokens long as the clean one (or --subject)")
    pat.add_argument("--subject", help="instead of --corrupt, ROME's corruption: Gaussian noise on the word "
                                       "embeddings of these words of the clean text (e.g. \"Eiffel Tower\")")
    pat.add_argument("--noise-scale", type=float, default=DEFAULT_NOISE_SCALE,
                     help=f"with --subject: the noise's std in units of the embedding matrix's std (default "
                          f"{DEFAULT_NOISE_SCALE:g}, the paper's 3σ)")
    pat.add_argument("--noise-samples", type=int, default=DEFAULT_NOISE_SAMPLES,
                     help=f"with --subject: noise draws averaged (default {DEFAULT_NOISE_SAMPLES})")
    pat.add_argument("--seed", type=int, default=0, help="with --subject: the noise's seed (default 0)")
    pat.add_argument("--answer", "--target", dest="target", required=True,
                     help="the clean answer, one vocabulary token (--target: the same, as dla and ablate name it)")
    pat.add_argument("--wrong", "--contrast", dest="contrast",
                     help="a wrong answer, one vocabulary token: the metric becomes logit(answer) - logit(wrong) "
                          "(default: logit(answer) alone; --contrast: the same)")
    pat.add_argument("--site", choices=ALL_SITES, default=DEFAULT_SITE,
                     help=f"resid: a block's output; attn: its attention's output; mlp: its MLP's output "
                          f"(default {DEFAULT_SITE}); encoder-decoders (BART, T5): resid, attn, mlp are the decoder's "
                          "and cross-attn its cross-attention's output (columns: decoder tokens), enc-resid, enc-attn, "
                          "enc-mlp the encoder's block, attention and MLP outputs (columns: encoder tokens); JSON "
                          "adds columns, encoder_tokens, decoder_tokens, output_position")
    pat.add_argument("--output-position", type=int, default=0,
                     help="encoder-decoders: the output token whose metric is read, after the model's own greedy "
                          "output before it, which the corrupted run decodes too (default 0, the first)")
    pat.add_argument("--approx", action="store_true",
                     help="attribution patching: the gradient approximation (clean - corrupt) . d metric / d "
                          "activation at the corrupted run, every layer and position from one forward and one "
                          "backward pass, normalised like the exact recovered fraction (JSON adds method: "
                          "\"attribution\")")
    pat.add_argument("--compare-exact", action="store_true",
                     help="with --approx (implied): also run the exact sweep; JSON adds exact, pearson and the "
                          "5 largest disagreements")
    handled_by(pat, cmd_patch)


def cmd_patch(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import patch
    from lm_workbench.requests import request_of

    request = request_of(args)  # a PatchRequest: what the Patching tab's jobs take too
    computed = patch(request, load_for(request))
    if args.json:
        print_json(computed.to_dict())
        return 0
    if request.approx or request.compare_exact:
        _print_approx(*computed.engine_result)
        return 0
    result = computed.engine_result
    metric = f"logit({result.answer})"
    if result.wrong is not None:
        metric += f" - logit({result.wrong})"
    if result.noise is not None:
        n = result.noise
        print(f"corrupted: noise on {n.subject!r} (tokens {', '.join(map(str, n.positions))}), std {n.scale:g} x "
              f"{n.sigma:.4f}, mean of {n.samples} draws (seed {n.seed})")
    print(f"metric {metric} at {_where(result)}: clean {result.clean_metric:.4f} "
          f"(predicts {result.clean_prediction!r}), corrupted {result.corrupt_metric:.4f} "
          f"(predicts {result.corrupt_prediction!r})")
    if result.note:
        print(result.note)
    print(f"recovered fraction, site {result.site} (rows: layers, columns: {_columns(result)})")
    _print_matrix(result)
    return 0


def _where(result) -> str:
    """Where the metric is read: a position of the text, or an encoder-decoder's output position."""
    if result.columns is None:
        return f"position {result.position}"
    return f"output position {result.position} (the decoder reads {' '.join(result.decoder_tokens)})"


def _columns(result) -> str:
    return "tokens" if result.columns is None else f"{result.columns} tokens"


def _print_matrix(result) -> None:
    print("      " + " ".join(f"{t[:7]:>7}" for t in result.tokens))
    for layer, row in zip(result.layers, result.effect):
        print(f"{layer:>5} " + " ".join(f"{v:7.3f}" for v in row))


def _print_approx(approx: Any, exact: Any, comparison: Any) -> None:
    """``patch --approx [--compare-exact]``'s table: attribution patching of ``--site``, the exact sweep beside."""
    metric = f"logit({approx.answer})" + (f" - logit({approx.wrong})" if approx.wrong is not None else "")
    print(f"metric {metric} at {_where(approx)}: clean {approx.clean_metric:.4f}, corrupted "
          f"{approx.corrupt_metric:.4f}")
    if approx.note:
        print(approx.note)
    print(f"approximate recovered fraction (attribution patching), site {approx.site} (rows: layers, columns: "
          f"{_columns(approx)})")
    _print_matrix(approx)
    if exact is not None and comparison is not None:
        print(f"exact recovered fraction, site {exact.site}")
        _print_matrix(exact)
        r = "undefined" if comparison.pearson is None else f"{comparison.pearson:.3f}"
        print(f"Pearson r {r}; largest disagreements: " + "; ".join(
            f"layer {d.layer} token {d.position} ({d.token}) {d.approximate:.3f} vs {d.exact:.3f}"
            for d in comparison.disagreements))

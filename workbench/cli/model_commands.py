"""``download``, ``info`` and ``encode``: fetch a hub model, what a model is, and its tokens, hidden states and
attentions for a text.

``download ID [--revision R]`` fetches a hub model into the cache without loading it (to prepare a
lecture machine): the plan (files, size) first, then a progress bar on stderr; ``--json`` prints
``{"repo_id", "revision", "commit", "folder", "files", "bytes"}``. Ctrl-C stops it and a later
``download`` resumes the partly fetched file.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import add_model_options, handled_by, load_for, output_file, print_json


def register(sub: Any) -> None:
    """Add ``download``, ``info`` and ``encode`` to the CLI's subparsers."""
    dl = sub.add_parser("download", help="fetch a hub model into the cache without loading it (size, progress, resume)")
    dl.add_argument("repo_id", metavar="ID", help="the hub id, e.g. bert-base-uncased or org/name")
    dl.add_argument("--revision", help="a branch, tag or commit (default: main)")
    dl.add_argument("--allow-pickle", action="store_true", default=None,
                    help="fetch pickle (.bin) weights when there are no safetensors; only for sources you trust")
    dl.add_argument("--progress", action="store_true", help="show progress on stderr even under --json or in a log")
    handled_by(dl, cmd_download)

    info = sub.add_parser("info", help="what a model is: family, layers, heads, heads present")
    add_model_options(info)
    handled_by(info, cmd_info)

    enc = sub.add_parser("encode", help="tokens, hidden states and attentions of a text, to an .npz file")
    add_model_options(enc)
    src = enc.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the text to encode")
    src.add_argument("--text-file", help="read the text from a UTF-8 file")
    enc.add_argument("--pair", help="a second segment (sentence pair)")
    enc.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    enc.add_argument("--out", required=True, help="output .npz file")
    enc.add_argument("--no-attentions", action="store_true", help="skip attentions (faster, smaller)")
    handled_by(enc, cmd_encode, json_help="print a JSON summary of what was written")


def cmd_download(args: argparse.Namespace) -> int:
    from lm_workbench.cli.common import StderrProgress, wants_progress
    from lm_workbench.command_results.compute_models import download
    from lm_workbench.requests import request_of

    shown = StderrProgress() if wants_progress(args) else None
    try:
        summary = download(request_of(args), listener=shown).to_dict()
    finally:
        if shown is not None:
            shown.close()
    if args.json:
        print_json(summary, indent=2)
    else:
        print(f"downloaded {summary['repo_id']} at {summary['commit'][:12]}: {summary['files']} files, "
              f"{summary['bytes'] / 2**20:.1f} MB, in {summary['folder']}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute import info
    from lm_workbench.requests import request_of

    ordered = info(request_of(args), load_for(args)).to_dict()
    if args.json:
        print_json(ordered, indent=2)
    else:
        width = max(len(k) for k in ordered)
        for key, value in ordered.items():
            print(f"{key:<{width}}  {value}")
    return 0


def cmd_encode(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute import encode
    from lm_workbench.engine.text_input import read_text_file, require_text
    from lm_workbench.requests import request_of

    require_text(read_text_file(args.text_file) if args.text_file else args.text)  # before the model loads
    out = output_file(args.out, ".npz", "an .npz file")
    result = encode(request_of(args), load_for(args))
    if args.json:
        print_json(result.to_dict(), indent=2)
    else:
        print(f"wrote {out}: {result.tokens} tokens, " + ", ".join(f"{k} {tuple(v.shape)}"
                                                                  for k, v in result.arrays.items()))
    return 0

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

from lm_workbench.engine.wording import with_article
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.cli.common import (
    add_model_options, load_for, note, output_file, print_json, settings_for, write_or_fail,
)

INFO_KEYS = ("family", "layers", "heads", "hidden_size", "parameters", "vocab_size", "has_mlm_head", "has_lm_head")


def register(sub: Any) -> None:
    """Add ``download``, ``info`` and ``encode`` to the CLI's subparsers."""
    dl = sub.add_parser("download", help="fetch a hub model into the cache without loading it (size, progress, resume)")
    dl.add_argument("repo_id", metavar="ID", help="the hub id, e.g. bert-base-uncased or org/name")
    dl.add_argument("--revision", help="a branch, tag or commit (default: main)")
    dl.add_argument("--allow-pickle", action="store_true", default=None,
                    help="fetch pickle (.bin) weights when there are no safetensors; only for sources you trust")
    dl.add_argument("--progress", action="store_true", help="show progress on stderr even under --json or in a log")
    dl.add_argument("--json", action="store_true", help="print JSON")
    dl.set_defaults(handler=cmd_download)

    info = sub.add_parser("info", help="what a model is: family, layers, heads, heads present")
    add_model_options(info)
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(handler=cmd_info)

    enc = sub.add_parser("encode", help="tokens, hidden states and attentions of a text, to an .npz file")
    add_model_options(enc)
    src = enc.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the text to encode")
    src.add_argument("--text-file", help="read the text from a UTF-8 file")
    enc.add_argument("--pair", help="a second segment (sentence pair)")
    enc.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    enc.add_argument("--out", required=True, help="output .npz file")
    enc.add_argument("--no-attentions", action="store_true", help="skip attentions (faster, smaller)")
    enc.add_argument("--json", action="store_true", help="print a JSON summary of what was written")
    enc.set_defaults(handler=cmd_encode)


def cmd_download(args: argparse.Namespace) -> int:
    from lm_workbench.engine.models.download import DownloadPlan, download_job
    from lm_workbench.engine.progress import Progress
    from lm_workbench.cli.common import StderrProgress, wants_progress

    settings = settings_for(args)
    if settings.offline:
        raise WorkbenchError("offline mode is on (settings, --offline or HF_HUB_OFFLINE): turn it off to download")
    shown = StderrProgress() if wants_progress(args) else None
    plan: DownloadPlan | None = None
    steps = download_job(args.repo_id, revision=args.revision, allow_pickle=settings.allow_pickle_weights)
    try:
        while True:
            try:
                event = next(steps)
            except StopIteration as stop:
                folder = stop.value
                break
            if isinstance(event, DownloadPlan):
                plan = event
                event = Progress(0, max(plan.total_bytes, 1), f"downloading {plan.describe()}")
            if shown is not None:
                shown(event)
    finally:
        steps.close()
        if shown is not None:
            shown.close()
    assert plan is not None  # the first event
    summary = {"repo_id": args.repo_id, "revision": plan.revision, "commit": plan.commit, "folder": str(folder),
               "files": len(plan.files), "bytes": plan.total_bytes}
    if args.json:
        print_json(summary, indent=2)
    else:
        print(f"downloaded {args.repo_id} at {plan.commit[:12]}: {len(plan.files)} files, "
              f"{plan.total_bytes / 2**20:.1f} MB, in {folder}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    loaded = load_for(args)
    data = loaded.info.to_dict()
    ordered = {k: data[k] for k in INFO_KEYS} | {k: v for k, v in data.items() if k not in INFO_KEYS}
    if args.json:
        print_json(ordered, indent=2)
    else:
        width = max(len(k) for k in ordered)
        for key, value in ordered.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _fixed_width(strings: list[str]) -> Any:
    """Tokens as a fixed-width unicode array (readable with allow_pickle=False)."""
    import numpy as np

    width = max([1] + [len(s) for s in strings])
    return np.array(strings, dtype=f"<U{width}")


def cmd_encode(args: argparse.Namespace) -> int:
    import numpy as np

    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.text_input import read_text_file, require_text

    text = read_text_file(args.text_file) if args.text_file else args.text
    require_text(text)
    out = output_file(args.out, ".npz", "an .npz file")
    loaded = load_for(args)
    if args.target and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--target is for encoder-decoders; {args.model} is {with_article(loaded.info.family)}")
    result = encode(loaded, text, pair=args.pair, target=args.target, attentions=not args.no_attentions)
    tok = result.tokenized
    arrays: dict[str, Any] = {
        "tokens": _fixed_width(tok.tokens),
        "ids": np.asarray(tok.ids, dtype=np.int64),
        "offsets": np.asarray(tok.offsets, dtype=np.int64).reshape(-1, 2),
        "word_ids": np.asarray([-1 if w is None else w for w in tok.word_ids], dtype=np.int64),
        "segment_ids": np.asarray([-1 if s is None else s for s in tok.segments], dtype=np.int64),
        "hidden_states": result.hidden_states.astype(np.float32),
        "truncated": np.asarray(tok.truncated),
    }
    if result.attentions is not None:
        arrays["attentions"] = result.attentions.astype(np.float32)
    if result.decoder is not None:
        dec = result.decoder
        arrays["decoder_tokens"] = _fixed_width(dec.tokens)
        arrays["decoder_ids"] = np.asarray(dec.ids, dtype=np.int64)
        arrays["decoder_hidden_states"] = dec.hidden_states.astype(np.float32)
        if dec.attentions is not None:
            arrays["decoder_attentions"] = dec.attentions.astype(np.float32)
            arrays["cross_attentions"] = dec.cross_attentions.astype(np.float32)
    write_or_fail(out, lambda: np.savez(out, **arrays))
    if tok.truncation_message:
        note(tok.truncation_message)
    from lm_workbench.engine.text_window import window_notes, with_notes

    summary = with_notes({"out": str(out), "tokens": len(tok), "truncated": tok.truncated,
                          "arrays": {k: list(v.shape) for k, v in arrays.items()}}, window_notes(tok))
    if args.json:
        print_json(summary, indent=2)
    else:
        print(f"wrote {out}: {len(tok)} tokens, " + ", ".join(f"{k} {tuple(v.shape)}" for k, v in arrays.items()))
    return 0

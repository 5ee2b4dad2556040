"""The headless commands. Each takes parsed arguments and returns an exit code."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from engine.errors import WorkbenchError
from workbench.network import apply_offline_mode
from workbench.settings import Settings, load_settings

INFO_KEYS = ("family", "layers", "heads", "hidden_size", "parameters", "vocab_size", "has_mlm_head", "has_lm_head")


def _settings_for(args: argparse.Namespace) -> Settings:
    settings = load_settings()
    for flag, field in (("device", "device"), ("precision", "precision"), ("threads", "cpu_threads"),
                        ("offline", "offline"), ("allow_pickle", "allow_pickle_weights"),
                        ("trust_remote_code", "trust_remote_code")):
        value = getattr(args, flag, None)
        if value is not None:
            setattr(settings, field, value)
    apply_offline_mode(settings.offline)  # before the engine imports the hub client
    return settings


def load_for(args: argparse.Namespace) -> Any:
    from engine.progress import NEVER_CANCELLED, run_to_completion
    from workbench.model_jobs import load_model_job

    settings = _settings_for(args)
    return run_to_completion(load_model_job(args.model, settings, NEVER_CANCELLED))


def cmd_info(args: argparse.Namespace) -> int:
    loaded = load_for(args)
    data = loaded.info.to_dict()
    ordered = {k: data[k] for k in INFO_KEYS} | {k: v for k, v in data.items() if k not in INFO_KEYS}
    if args.json:
        print(json.dumps(ordered, indent=2))
    else:
        width = max(len(k) for k in ordered)
        for key, value in ordered.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _fixed_width(strings: list[str]) -> np.ndarray:
    """Tokens as a fixed-width unicode array (readable with allow_pickle=False)."""
    width = max([1] + [len(s) for s in strings])
    return np.array(strings, dtype=f"<U{width}")


def cmd_encode(args: argparse.Namespace) -> int:
    from engine.analysis import encode
    from engine.text_input import read_text_file, require_text

    text = read_text_file(args.text_file) if args.text_file else args.text
    require_text(text)
    out = Path(args.out)
    if out.suffix != ".npz":
        raise WorkbenchError(f"--out must name an .npz file, not {out.name!r}")
    if not out.parent.exists():
        raise WorkbenchError(f"the folder for --out does not exist: {out.parent}")
    loaded = load_for(args)
    if args.target and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--target is for encoder-decoders; {args.model} is a {loaded.info.family}")
    result = encode(loaded, text, pair=args.pair, target=args.target, attentions=not args.no_attentions)
    tok = result.tokenized
    arrays: dict[str, np.ndarray] = {
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
    try:
        np.savez(out, **arrays)
    except OSError as exc:
        raise WorkbenchError(f"cannot write {out}: {exc.strerror}") from None
    if tok.truncation_message:
        print(f"note: {tok.truncation_message}", file=sys.stderr)
    summary = {"out": str(out), "tokens": len(tok), "truncated": tok.truncated,
               "arrays": {k: list(v.shape) for k, v in arrays.items()}}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"wrote {out}: {len(tok)} tokens, " + ", ".join(f"{k} {tuple(v.shape)}" for k, v in arrays.items()))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"info": cmd_info, "encode": cmd_encode}


def run(args: argparse.Namespace) -> int:
    from workbench.cli import objective_commands, prediction_commands

    commands = COMMANDS | prediction_commands.COMMANDS | objective_commands.COMMANDS
    return commands[args.command](args)

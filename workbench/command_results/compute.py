"""The commands the API computes itself, and the CLI handlers call: ``info``, ``encode``, ``attention``,
``fill-mask``, ``next-token``. Each takes the command's typed request and the ``LoadedModel`` and returns its
result object, whose ``to_dict()`` is what ``--json`` prints; the handler prints it (JSON or its table). Errors:
``WorkbenchError`` with the CLI's line. The registry of the computed commands is
``lm_workbench.command_results.computed``.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.results import EncodeResult, Result, result_for

INFO_KEYS = ("family", "layers", "heads", "hidden_size", "parameters", "vocab_size", "has_mlm_head", "has_lm_head")


def info(request: Any, loaded: Any) -> Result:
    """What a model is: family, layers, heads, hidden size, parameters, vocabulary, heads present (keys in the
    CLI's order: ``INFO_KEYS`` first)."""
    data = loaded.info.to_dict()
    ordered = {k: data[k] for k in INFO_KEYS} | {k: v for k, v in data.items() if k not in INFO_KEYS}
    return result_for("info", as_json(ordered))


def _fixed_width(strings: list[str]) -> Any:
    """Tokens as a fixed-width unicode array (readable with allow_pickle=False)."""
    import numpy as np

    width = max([1] + [len(s) for s in strings])
    return np.array(strings, dtype=f"<U{width}")


def encode(request: Any, loaded: Any) -> EncodeResult:
    """Tokens, hidden states and attentions of a text (``EncodeResult.arrays``: the .npz file's arrays), written
    to ``request.out`` when it names a file (None: kept, ``save`` writes it). Errors: an empty text, ``target`` on
    a model that is not an encoder-decoder, an ``out`` that is not an .npz file in a folder that exists."""
    import numpy as np

    from lm_workbench.command_results.checks import note, output_file
    from lm_workbench.engine.analysis import encode as encode_text
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.text_input import read_text_file, require_text
    from lm_workbench.engine.text_window import window_notes, with_notes
    from lm_workbench.engine.wording import with_article

    text = read_text_file(request.text_file) if request.text_file else request.text
    require_text(text)
    out = output_file(request.out, ".npz", "an .npz file") if request.out is not None else None
    if request.target and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--target is for encoder-decoders; {request.model} is "
                             f"{with_article(loaded.info.family)}")
    result = encode_text(loaded, text, pair=request.pair, target=request.target,
                         attentions=not request.no_attentions)
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
    summary = with_notes({"out": None if out is None else str(out), "tokens": len(tok), "truncated": tok.truncated,
                          "arrays": {k: list(v.shape) for k, v in arrays.items()}}, window_notes(tok))
    encoded = EncodeResult(as_json(summary), arrays)
    if out is not None:
        encoded.save(out)
    if tok.truncation_message:
        note(tok.truncation_message)
    return encoded


def _read_notes(tok: Any) -> list[str]:
    """The "tokens a–b of n" line when the window cut the text (also said on stderr), else nothing."""
    from lm_workbench.command_results.checks import note
    from lm_workbench.engine.text_window import window_notes

    notes = window_notes(tok)
    if tok is not None and tok.truncated and tok.truncation_message:
        note(tok.truncation_message)
    return notes


def attention(request: Any, loaded: Any) -> Result:
    """One head's attention weights: ``weights`` [queries, keys] (rows sum to 1; with ``hide_special`` the special
    tokens dropped and rows renormalised), ``tokens`` (queries), ``key_tokens`` when they differ (cross-attention).
    Errors: an ELMo (no attention), ``kind`` other than encoder on a model that is not an encoder-decoder, a layer
    or head out of range."""
    from lm_workbench.engine.analysis import encode as encode_text
    from lm_workbench.engine.attention import AttentionKind, attention_matrix, attention_side, hide_special
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.text_window import with_notes
    from lm_workbench.engine.wording import with_article

    if loaded.info.family == "biLM":
        raise WorkbenchError(f"{request.model} is an LSTM language model (ELMo): it has no attention; "
                             "'encode' gives its layers")
    if request.kind != "encoder" and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--kind {request.kind} is for encoder-decoders; {request.model} is "
                             f"{with_article(loaded.info.family)}")
    result = encode_text(loaded, request.text, pair=request.pair, target=request.target, attentions=True)
    side = attention_side(result, AttentionKind(request.kind))
    weights = attention_matrix(side, request.layer, [request.head])[0]
    queries, keys = side.query_tokens, side.key_tokens
    if request.hide_special:
        weights, q_keep, k_keep = hide_special(weights, side.query_special, side.key_special)
        queries, keys = [queries[i] for i in q_keep], [keys[i] for i in k_keep]
    notes = _read_notes(result.tokenized)
    data = {"tokens": queries, "weights": weights.tolist(), "layer": request.layer, "head": request.head,
            "kind": request.kind}
    if keys != queries:
        data["key_tokens"] = keys
    return result_for("attention", as_json(with_notes(data, notes)))


def fill_mask(request: Any, loaded: Any) -> Result:
    """The top-``k`` tokens for every mask: ``masks`` (per mask its ``position`` and ``candidates``: token, id,
    prob). Errors: ``k`` < 1, a model without an MLM head, a text without a mask."""
    from lm_workbench.command_results.checks import positive_k
    from lm_workbench.engine.predictions import fill_mask as fill
    from lm_workbench.engine.text_window import with_notes

    tok, predictions = fill(loaded, request.text, positive_k(request.k))
    notes = _read_notes(tok)
    return result_for("fill-mask", as_json(with_notes({"tokens": tok.tokens,
                                                         "masks": [p.to_dict() for p in predictions]}, notes)))


def next_token(request: Any, loaded: Any) -> Result:
    """The top-``k`` next tokens after the text: ``candidates`` (token, id, prob). Errors: ``k`` < 1, a model
    that is not a decoder (or encoder-decoder)."""
    from lm_workbench.command_results.checks import note_window, positive_k
    from lm_workbench.engine.predictions import next_tokens
    from lm_workbench.engine.text_window import window_notes, with_notes

    read = next_tokens(loaded, request.text, positive_k(request.k))
    notes = window_notes(read.window)
    note_window(notes)
    return result_for("next-token", as_json(with_notes({"candidates": [c.to_dict() for c in read.candidates]},
                                                        notes)))


def as_json(data: Any) -> Any:
    """``data`` as ``--json`` prints it and JSON reads it back (tuples as lists, other values as text)."""
    import json

    return json.loads(json.dumps(data, default=str))

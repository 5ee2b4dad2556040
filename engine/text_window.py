"""The one rule for reading a text longer than the model's window (docs/data-formats.md, "Texts longer than
the window").

An answer at a position (the next token, a mask, an attribution, patching, DLA or ablation target, a lens
column) reads a window that contains that position, and every single text a view or command reads goes
through the same window, so the tokens shown are the tokens the answer is about:

- a decoder reads the last ``window − specials`` text tokens plus its specials (``keep="end"``);
- an encoder reads a window holding every mask token with as much context on both sides as fits
  (``keep="masks"``; masks further apart than one window are refused in one line; no mask: the first window);
- an encoder-decoder applies the encoder's rule to its encoder input;
- ELMo (word level) has no window.

What was read is ``TokenizedText.window`` ("tokens a–b of n": the text's own tokens, specials excluded,
1-based, inclusive); ``notes`` gives the line wherever the window cut the text. Corpora and training rows are
cut at their end and counted (their readers say how many).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from lm_workbench.engine.models.families import Family
from lm_workbench.engine.tokens import TextWindow, TokenizedText, cut_ids, tokenize


def keep_for(loaded: Any) -> str:
    """Where ``loaded``'s window sits on a long text: ``"end"`` (decoders), ``"masks"`` (encoders and
    encoder-decoders' encoder input), ``"start"`` (anything else)."""
    family = loaded.family
    if family is Family.DECODER:
        return "end"
    if family in (Family.ENCODER, Family.ENCODER_DECODER):
        return "masks"
    return "start"


def window_of(loaded: Any, max_tokens: int | None = None) -> int | None:
    """The tokens ``loaded`` reads at once (its window), lowered to ``max_tokens`` (a view's cap) when given."""
    window = loaded.info.max_positions
    if max_tokens is not None:
        window = min(window, max_tokens) if window else max_tokens
    return window


def read_text(loaded: Any, text: str, pair: str | None = None, *, max_tokens: int | None = None) -> TokenizedText:
    """``text`` (and ``pair``) tokenized for ``loaded`` and cut to its window by the rule (see the module)."""
    return tokenize(loaded.tokenizer, text, pair, max_length=window_of(loaded, max_tokens), keep=keep_for(loaded))


def model_inputs(loaded: Any, tok: TokenizedText) -> dict[str, Any]:
    """A read text as the model's inputs: ``input_ids`` [1, n] (and its extra inputs, e.g. ``token_type_ids``)
    on ``loaded``'s device."""
    import torch

    device = loaded.device.torch_device
    inputs = {"input_ids": torch.tensor([tok.ids], device=device)}
    for name, values in tok.extra_inputs.items():
        inputs[name] = torch.tensor([values], device=device)
    return inputs


def read_ids(loaded: Any, ids: Sequence[int]) -> tuple[list[int], TextWindow]:
    """A decoder prompt's ids (leading specials, text, generated tokens) cut to the model's last window."""
    return cut_ids(loaded.tokenizer, ids, loaded.info.max_positions, "end")


def window_notes(*read: TokenizedText | TextWindow | None) -> list[str]:
    """The "tokens a–b of n" lines of the windows that cut their text (none when every text was read whole)."""
    notes: list[str] = []
    for item in read:
        if isinstance(item, TokenizedText):
            line = item.window_note
        elif isinstance(item, TextWindow):
            line = item.note if item.cut else None
        else:
            line = None
        if line and line not in notes:
            notes.append(line)
    return notes


def with_notes(data: dict, notes: Iterable[str]) -> dict:
    """``data`` with ``notes`` appended to its ``notes`` list (created only when there is something to say)."""
    notes = [n for n in notes if n]
    if not notes:
        return data
    return {**data, "notes": list(data.get("notes", [])) + [n for n in notes if n not in data.get("notes", [])]}

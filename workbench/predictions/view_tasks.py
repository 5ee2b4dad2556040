"""The Predictions tab's jobs (each ``fn(..., cancel)``; torch is imported on the worker thread).

``fill_masks`` (a masked LM's top k per mask), ``next_tokens`` (a decoder's top k after kept prompt ids),
``generate_more`` (greedy continuation of those ids), ``infill_text`` (an encoder-decoder's output). Explain's
jobs are ``lm_workbench.attribution.view_tasks``; model B's side is ``lm_workbench.compare.view_tasks.predict_b``.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.reading import read_line

GENERATE_TOKENS = 20
INFILL_MAX_TOKENS = 64
TAIL = 6  # prompt tokens shown above the next-token table


def fill_masks(loaded: Any, text: str, k: int, cancel: Any) -> Any:
    """Fill-mask tokenizes its own text: the generic [MASK] a user types is first rewritten as the model's own
    mask token (RoBERTa's <mask>), so the window's encoding of the text as typed is not the one it reads.
    Returns (tokens, predictions, ids, text, the window line or None)."""
    from lm_workbench.engine.predictions import fill_mask  # imports torch: on the worker thread
    from lm_workbench.engine.text_window import window_notes

    tt, preds = fill_mask(loaded, text, k)
    return tt.tokens, preds, tt.ids, text, read_line(window_notes(tt))


def next_tokens(loaded: Any, text: str, ids: list[int] | None, k: int, cancel: Any) -> dict:
    """The next token's top ``k`` after the prompt's ids (``prompt_ids``: the prompt as generation continues it,
    its own encoding rather than the window's, which shows the text with the model's special tokens); ``read``
    is the line to show when the prompt is longer than the window (it is read through its last window)."""
    from lm_workbench.engine.predictions import next_tokens_from_ids, prompt_ids
    from lm_workbench.engine.text_window import window_notes

    ids = list(ids) if ids is not None else prompt_ids(loaded, text)
    cancel.check()
    read = next_tokens_from_ids(loaded, ids, k)  # a prompt longer than the window: its last window
    cands = read.candidates
    tok = loaded.tokenizer
    return {
        "text": text,  # the text box content these ids stand for
        "ids": ids,  # all of them (Accept appends to them; the text box shows them decoded)
        "window": read.window,
        "read": read_line(window_notes(read.window)),
        "candidates": cands,
        "texts": [tok.decode(ids + [c.id], skip_special_tokens=True) for c in cands],
        "tail": tok.convert_ids_to_tokens(ids[-TAIL:]),
    }


def generate_more(loaded: Any, ids: list[int], cancel: Any) -> tuple[list[int], str]:
    from lm_workbench.engine.predictions import continue_text

    new = continue_text(loaded, ids, GENERATE_TOKENS, cancel=cancel)
    out = list(ids) + list(new)
    return out, loaded.tokenizer.decode(out, skip_special_tokens=True)


def infill_text(loaded: Any, text: str, cancel: Any) -> tuple[Any, list[str]]:
    """(the ``Infilling``, its output tokens); ``Infilling.window``: the encoder input's tokens read."""
    from lm_workbench.engine.predictions import infill

    result = infill(loaded, text, INFILL_MAX_TOKENS, cancel=cancel)
    return result, loaded.tokenizer.convert_ids_to_tokens(result.output_ids)

"""The Attention tab's jobs (each ``fn(..., cancel)``; torch is imported on the worker thread).

``encode_attention`` encodes the text with its attentions and hands every attention side (each kind, with
and without special tokens) to the view's ``per_side`` (the model grid's mosaic, computed here on the worker
thread: at 512 tokens a mosaic takes ~0.5 s); ``encode_states`` reads hidden states only (a model with no
attention); ``walkthrough_of`` is one head's attention for one query token, step by step.
"""

from __future__ import annotations

from typing import Any, Callable


def encode_attention(loaded: Any, text: str, pair: str | None, target: str | None, max_tokens: int,
                     per_side: Callable[[Any, bool], Any], cancel: Any, tokens: Any = None
                     ) -> tuple[Any, dict[tuple[str, bool], Any]]:
    """The ``Encoding`` and ``{(kind, hide special): per_side(side, hide)}`` for every attention kind;
    ``tokens``: the window's encoding of the text, reused unless the view's cap cuts it shorter."""
    from lm_workbench.engine.analysis import encode  # imports torch: on the worker thread
    from lm_workbench.engine.attention import AttentionKind, attention_side

    encoding = encode(loaded, text, pair=pair, target=target, attentions=True, max_tokens=max_tokens,
                      tokenized=tokens, cancel=cancel)
    kinds = list(AttentionKind) if encoding.decoder is not None else [AttentionKind.ENCODER]
    mosaics = {}
    for kind in kinds:
        side = attention_side(encoding, kind)
        for hide in (False, True):
            cancel.check()
            mosaics[(kind.value, hide)] = per_side(side, hide)
    return encoding, mosaics


def walkthrough_of(loaded: Any, tokenized: Any, layer: int, head: int, query: int, cancel: Any) -> Any:
    """One head's attention for one query token, step by step."""
    from lm_workbench.engine.attention_walkthrough import attention_walkthrough

    return attention_walkthrough(loaded, tokenized, layer=layer, head=head, query=query, cancel=cancel)


def encode_states(loaded: Any, text: str, pair: str | None, cancel: Any, tokens: Any = None) -> Any:
    """Hidden states only (a model with no attention); ``tokens``: the window's encoding, reused."""
    from lm_workbench.engine.analysis import encode

    return encode(loaded, text, pair=pair, attentions=False, tokenized=tokens, cancel=cancel)

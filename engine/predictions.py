"""What a pre-trained model predicts: fill-mask, next token, infilling.

Each function refuses a model whose checkpoint lacks the head it needs (the
loader records that; a head transformers had to initialise at random never
produces output here). Probabilities are a float32 softmax over the model's
logits; top-k ties keep the lower token id first. A text longer than the model's window is read through the
window the rule of ``lm_workbench.engine.text_window`` picks (a decoder: its last window; fill-mask and
infilling: the window around every mask), and the results say which tokens that was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from lm_workbench.engine.wording import with_article
from lm_workbench.engine.decoding import SamplingConfig, decode_job
from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, run_to_completion
from lm_workbench.engine.text_input import require_text
from lm_workbench.engine.text_window import read_ids, read_text
from lm_workbench.engine.tokens import TextWindow, TokenizedText, tokenize

GENERIC_MASK = "[MASK]"


@dataclass(frozen=True)
class Candidate:
    token: str
    id: int
    prob: float

    def to_dict(self) -> dict:
        return {"token": self.token, "id": self.id, "prob": self.prob}


@dataclass(frozen=True)
class MaskPrediction:
    position: int  # token index in the tokenized text
    candidates: list[Candidate]

    def to_dict(self) -> dict:
        return {"position": self.position, "candidates": [c.to_dict() for c in self.candidates]}


def top_k(logits: torch.Tensor, tokenizer, k: int) -> list[Candidate]:
    """The k most probable tokens of one [vocab] logit vector."""
    probs = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    k = max(1, min(int(k), probs.shape[0]))
    order = np.lexsort((np.arange(probs.shape[0]), -probs))[:k]  # by prob desc, then id asc
    tokens = tokenizer.convert_ids_to_tokens([int(i) for i in order])
    return [Candidate(t, int(i), float(probs[i])) for t, i in zip(tokens, order)]


def _require_tokens(tok: TokenizedText) -> None:
    if all(tok.special):
        raise WorkbenchError("the text gives no tokens for this model (only special tokens are left)")


def with_model_mask(text: str, tokenizer) -> str:
    """Accept the generic [MASK] as well as the model's own mask token (e.g. <mask>)."""
    mask = tokenizer.mask_token
    if mask and mask != GENERIC_MASK:
        text = text.replace(GENERIC_MASK, mask)
    return text


def fill_mask(loaded: LoadedModel, text: str, k: int = 5) -> tuple[TokenizedText, list[MaskPrediction]]:
    """Top-k tokens for every mask token in the text (encoders with an MLM head)."""
    require_text(text)
    info = loaded.info
    if loaded.family is not Family.ENCODER or not info.has_mlm_head:
        what = (f"it is {with_article(loaded.family.value)} model, not an encoder" if loaded.family is not Family.ENCODER
                else "its checkpoint has no MLM head weights")
        raise MissingHeadError(
            f"fill-mask needs a masked-LM (MLM) head, and {info.spec} has none ({what}); "
            "open a model saved with its MLM head, or pre-train a course model"
        )
    tokenizer = loaded.tokenizer
    if tokenizer.mask_token is None:
        raise MissingHeadError(f"the tokenizer of {info.spec} has no mask token")
    text = with_model_mask(text, tokenizer)
    tok = read_text(loaded, text)  # the window holding every mask
    _require_tokens(tok)
    positions = [i for i, t in enumerate(tok.ids) if t == tokenizer.mask_token_id]
    if not positions:
        raise WorkbenchError(f"no mask token in the text: write {GENERIC_MASK} (or {tokenizer.mask_token}) "
                             "where the model should fill in")
    inputs = {"input_ids": torch.tensor([tok.ids], device=loaded.device.torch_device)}
    for name, values in tok.extra_inputs.items():
        inputs[name] = torch.tensor([values], device=loaded.device.torch_device)
    with torch.inference_mode():
        logits = loaded.model(**inputs).logits[0]
    return tok, [MaskPrediction(p, top_k(logits[p], tokenizer, k)) for p in positions]


def _require_lm(loaded: LoadedModel, family: Family, what: str) -> None:
    info = loaded.info
    if loaded.family is not family:
        raise MissingHeadError(f"{what} needs {with_article(family.value)} model with an LM head; {info.spec} is "
                               f"{with_article(loaded.family.value)}")
    if not info.has_lm_head:
        raise MissingHeadError(f"{what} needs an LM head, and the checkpoint of {info.spec} has none")


def prompt_ids(loaded: LoadedModel, text: str) -> list[int]:
    """A decoder prompt: all the text's tokens (BOS first where the tokenizer adds one), not cut: what reads
    them cuts them to its window (``next_token_from_ids`` to the last one), so nothing of the text is lost."""
    require_text(text)
    tok = tokenize(loaded.tokenizer, text)
    _require_tokens(tok)
    return tok.ids


@dataclass(frozen=True)
class NextTokens:
    """The top-k next tokens after a prompt, and which of its tokens the model read (its last window)."""

    candidates: list[Candidate]
    ids: list[int]  # the ids read: leading specials and the last text tokens that fit the window
    window: TextWindow  # "tokens a–b of n" of the prompt's tokens (specials excluded)


def next_tokens_from_ids(loaded: LoadedModel, ids: Sequence[int], k: int = 5) -> NextTokens:
    """Top-k next tokens after prompt ids; a prompt longer than the window is read through its last window."""
    _require_lm(loaded, Family.DECODER, "next-token prediction")
    read, window = read_ids(loaded, ids)
    with torch.inference_mode():
        logits = loaded.model(input_ids=torch.tensor([read], device=loaded.device.torch_device)).logits[0, -1]
    return NextTokens(top_k(logits, loaded.tokenizer, k), read, window)


def next_token_from_ids(loaded: LoadedModel, ids: Sequence[int], k: int = 5) -> list[Candidate]:
    return next_tokens_from_ids(loaded, ids, k).candidates


def next_tokens(loaded: LoadedModel, text: str, k: int = 5) -> NextTokens:
    """Top-k next tokens after a text (decoders with an LM head), with the window read."""
    _require_lm(loaded, Family.DECODER, "next-token prediction")
    return next_tokens_from_ids(loaded, prompt_ids(loaded, text), k)


def next_token(loaded: LoadedModel, text: str, k: int = 5) -> list[Candidate]:
    """Top-k next tokens after a text (decoders with an LM head)."""
    return next_tokens(loaded, text, k).candidates


def continue_text(loaded: LoadedModel, ids: Sequence[int], max_new_tokens: int = 20,
                  sampling: SamplingConfig | None = None, cancel: CancelToken = NEVER_CANCELLED) -> list[int]:
    """Generate after a prompt through the shared decoding function; returns the new ids (at most as many as
    the window has room for; a prompt that fills the window is refused, as ``generate`` refuses it)."""
    _require_lm(loaded, Family.DECODER, "generation")
    window = loaded.info.max_positions
    if window and len(ids) >= window:
        raise WorkbenchError(f"the prompt is {len(ids)} tokens long and the model reads {window}: there is no "
                             "room left to generate; shorten it")
    budget = min(max_new_tokens, window - len(ids)) if window else max_new_tokens
    return run_to_completion(decode_job(loaded.model, loaded.family, list(ids), tokenizer=loaded.tokenizer,
                                          max_new_tokens=budget, sampling=sampling, cancel=cancel))


@dataclass(frozen=True)
class Infilling:
    source_tokens: list[str]
    output_ids: list[int]
    text: str
    window: TextWindow | None = None  # the encoder input's tokens read


def infill(loaded: LoadedModel, text: str, max_new_tokens: int = 64,
           cancel: CancelToken = NEVER_CANCELLED) -> Infilling:
    """BART-style reconstruction of a text with mask spans (greedy, through the shared decoder)."""
    require_text(text)
    _require_lm(loaded, Family.ENCODER_DECODER, "infilling")
    tokenizer = loaded.tokenizer
    if tokenizer.mask_token is None:
        raise MissingHeadError(f"infilling needs a mask token, and the tokenizer of {loaded.info.spec} has none "
                               "(T5-style models use sentinel tokens instead)")
    text = with_model_mask(text, tokenizer)
    if tokenizer.mask_token not in text:
        raise WorkbenchError(f"no mask token in the text: write {tokenizer.mask_token} (or {GENERIC_MASK}) "
                             "where a span is missing")
    tok = read_text(loaded, text)  # the encoder input's window holding every mask
    _require_tokens(tok)
    out = run_to_completion(decode_job(loaded.model, loaded.family, tok.ids, tokenizer=tokenizer,
                                         max_new_tokens=max_new_tokens, cancel=cancel))
    return Infilling(tok.tokens, out, tokenizer.decode(out, skip_special_tokens=True), tok.window)



"""Model B's side of an explanation: the same prediction explained in a second model (the A | B of "Explain").

Model A explained a prediction on a text: the next token after it (a decoder), the token at its k-th mask (a
masked LM) or the first output token (an encoder-decoder). Model B makes the same kind of prediction at the
same place in the same text, tokenized by B's own tokenizer (``counterpart_site``), and explains the same
word: A's target token as text, when B's vocabulary has it as one token (``same_token``); otherwise B's own
top token, and the note says so. A foil ("instead of") travels the same way: B's own spelling of A's foil
word, or no foil (the note says so) where B splits it. Where B cannot make that prediction at all (another
family, no LM head, no mask token), ``counterpart_job`` returns no explanation and a one-line reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator

from lm_workbench.engine.attribution.explain import Explanation, explain_job
from lm_workbench.engine.attribution.names import DEFAULT_STEPS, GRAD_INPUT
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import Target, prediction_site, resolve_target, site_from_ids, token_name
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.predictions import GENERIC_MASK, with_model_mask
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.text_window import read_text

KIND_FAMILY = {"next-token": Family.DECODER, "mask": Family.ENCODER, "seq2seq": Family.ENCODER_DECODER}
OTHER_MASKS = ("<mask>",)  # mask tokens a text written for model A may hold besides the generic [MASK]
KIND_WHAT = {"next-token": "the next token (a decoder)", "mask": "a masked token (a masked LM)",
             "seq2seq": "an output token (an encoder-decoder)"}


@dataclass(frozen=True)
class Counterpart:
    """B's explanation (None when B cannot make the prediction) and a one-line note ('' when nothing to say)."""

    explanation: Explanation | None
    note: str = ""


def target_word(loaded: Any, token_id: int) -> str:
    """A vocabulary token as the text it stands for: ``Ġcat`` -> ``cat``, ``##ing`` -> ``ing``."""
    word = loaded.tokenizer.decode([int(token_id)]).strip()
    return word[2:] if word.startswith("##") and len(word) > 2 else word


def same_token(loaded: Any, word: str) -> int | None:
    """B's one token for ``word``: the word after a space (how a next word starts), else the bare word; None
    when B's tokenizer splits both."""
    for text in (" " + word, word):
        ids = loaded.tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(ids) == 1:
            return int(ids[0])
    return None


def counterpart_site(loaded: Any, text: str, kind: str, mask_index: int = 0):
    """B's prediction site for ``text``: after its last token, at its ``mask_index``-th mask, or its first
    output token; a one-line ``WorkbenchError`` where B cannot make that kind of prediction."""
    family = loaded.family
    if family is not KIND_FAMILY.get(kind):
        article = "an" if family.value[0] in "ae" else "a"
        name = "ELMo (a biLM)" if family is Family.BILM else f"{article} {family.value}"
        raise WorkbenchError(f"model B cannot explain {KIND_WHAT.get(kind, kind)}: it is {name}")
    if kind != "mask":
        return prediction_site(loaded, text, "attribution")
    tokenizer = loaded.tokenizer
    if tokenizer.mask_token is None:
        raise WorkbenchError("model B's tokenizer has no mask token")
    for spelling in OTHER_MASKS:  # A's own mask token (RoBERTa's <mask>) is a mask for B too
        text = text.replace(spelling, GENERIC_MASK)
    ids = read_text(loaded, with_model_mask(text, tokenizer)).ids  # the window holding every mask
    masks = [i for i, t in enumerate(ids) if t == tokenizer.mask_token_id]
    if mask_index >= len(masks):
        raise WorkbenchError(f"model B finds {len(masks)} mask token(s) in the text, not mask {mask_index + 1}")
    return site_from_ids(loaded, ids, masks[mask_index])


def counterpart_job(loaded: Any, text: str, kind: str, word: str, method: str = GRAD_INPUT, layer: int = -1,
                      mask_index: int = 0, steps: int = DEFAULT_STEPS, cancel: CancelToken = NEVER_CANCELLED,
                      foil: str | None = None) -> Generator[Progress, None, Counterpart]:
    """Explain in model B (``loaded``) the prediction of ``kind`` that A explained on ``text``, for ``word``
    (A's target as text) and, with ``foil`` (A's foil as text), not that word; ``layer`` the attention shown
    (-1: the last; past B's layers: B's last). A job."""
    notes = []
    try:
        site = counterpart_site(loaded, text, kind, mask_index)
        token_id = same_token(loaded, word)
        if token_id is None:
            target = resolve_target(loaded, site)
            pieces = loaded.tokenizer.tokenize(" " + word)
            notes.append(f"“{word}” is {len(pieces)} tokens for B ({' '.join(pieces)}): "
                         f"B's own top token {target.token!r} is explained")
        else:
            target = Target(site, token_id, token_name(loaded, token_id))
        if foil is not None:
            target = _with_foil(loaded, target, foil, notes)
        count = (loaded.info.decoder_layers or loaded.info.layers) if kind == "seq2seq" else loaded.info.layers
        if layer >= count > 0:
            notes.append(f"B has {count} layers: its last layer's attention is shown")
            layer = -1
        explanation = yield from explain_job(loaded, target, method, steps, layer, cancel)
    except WorkbenchError as exc:
        return Counterpart(None, f"Model B: {exc}")
    return Counterpart(explanation, "; ".join(notes))


def _with_foil(loaded: Any, target: Target, foil: str, notes: list[str]) -> Target:
    """``target`` with B's one token for A's foil word; without a foil (and a note) where B has none."""
    foil_id = same_token(loaded, foil)
    if foil_id is None:
        pieces = loaded.tokenizer.tokenize(" " + foil)
        notes.append(f"the foil “{foil}” is {len(pieces)} tokens for B ({' '.join(pieces)}): B's side has no foil")
        return target
    if foil_id == target.id:
        notes.append(f"B's target is the foil “{foil}” itself: B's side has no foil")
        return target
    return target.with_contrast(foil_id, token_name(loaded, foil_id))

"""Predictions and generations with a vector added at a hook point, beside the unsteered ones.

Where the prediction is read: a decoder's next token after the text; an encoder's masked position (the text
needs its mask token; ``[MASK]`` is translated to the model's own); an encoder-decoder's first output token. The
vector is added at every position of the site: ``x -> x + strength · v``. Generation (``generate`` > 0, greedy):
decoders and encoder-decoders; an encoder's is ``null`` with a note. A steered output that is not finite stops
with a one-line error (the strength broke the model).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family


@dataclass
class Side:
    """One side: top predictions ``[{token, id, probability}]`` and the generated text (or None)."""

    top: list[dict[str, Any]]
    generation: str | None = None


@dataclass
class SteerResult:
    steered: Side
    unsteered: Side
    site: str
    strength: float
    position: str
    kl: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def inputs(loaded: Any, text: str) -> tuple[dict[str, torch.Tensor], int, str, list[str]]:
    """(model inputs, the position whose logits are read, what that position is, notes): the text read through the
    window rule (``lm_workbench.engine.text_window``: a decoder its last window, an encoder the window holding
    its mask), so the answer is about the position asked; a cut is said in the notes."""
    from lm_workbench.engine.text_window import model_inputs, read_text, window_notes

    tok = loaded.tokenizer
    device = loaded.device.torch_device
    if loaded.family is Family.ENCODER:
        if not (loaded.info.has_mlm_head and tok.mask_token):
            raise WorkbenchError(f"{loaded.info.spec} has no masked-LM head: it makes no predictions to steer")
        read = read_text(loaded, text.replace("[MASK]", tok.mask_token))
        batch = model_inputs(loaded, read)
        where = (batch["input_ids"][0] == tok.mask_token_id).nonzero()
        if len(where) != 1:
            raise WorkbenchError(f"an encoder's text needs exactly one {tok.mask_token} (found {len(where)})")
        return batch, int(where[0]), "the masked token", window_notes(read)
    if not loaded.info.has_lm_head:
        raise WorkbenchError(f"{loaded.info.spec} has no LM head: it makes no predictions to steer")
    read = read_text(loaded, text)
    if not read.ids:
        raise WorkbenchError("the text has no tokens")
    batch = model_inputs(loaded, read)
    if loaded.family is Family.ENCODER_DECODER:
        start = loaded.model.config.decoder_start_token_id
        batch["decoder_input_ids"] = torch.tensor([[start]], device=device)
        return batch, 0, "the first output token", window_notes(read)
    return batch, batch["input_ids"].shape[1] - 1, "the next token after the text", window_notes(read)


def adding(site: Any, vector: torch.Tensor, strength: float, width_check: bool = True) -> Any:
    """A context manager: ``site``'s value x -> x + strength · vector (a one-line error on a width mismatch)."""
    def change(x: torch.Tensor) -> torch.Tensor:
        if width_check and x.shape[-1] != vector.shape[-1]:
            raise WorkbenchError(f"the vector is {vector.shape[-1]} wide, {site.name} is {x.shape[-1]}")
        return x + strength * vector.to(x.device, x.dtype)

    return site.replace(change)


def top(loaded: Any, logits: torch.Tensor, k: int) -> list[dict[str, Any]]:
    probs = logits.float().softmax(-1)
    values, ids = probs.topk(k)
    return [{"token": loaded.tokenizer.decode([i]), "id": int(i), "probability": float(p)}
            for p, i in zip(values.tolist(), ids.tolist())]


@torch.no_grad()
def read_logits(loaded: Any, batch: dict[str, torch.Tensor], position: int, context: Any = None) -> torch.Tensor:
    """The logits [vocab] at ``position``, within ``context`` (a steering context manager, or none)."""
    with context if context is not None else nullcontext():
        out = loaded.model(**batch).logits[0, position].float()
    return out


@torch.no_grad()
def generate(loaded: Any, text: str, tokens: int, context: Any = None) -> str:
    """Greedy ``tokens`` more tokens after the text read through the window rule (a decoder keeps room for them)."""
    from lm_workbench.engine.text_window import model_inputs, read_text

    tok = loaded.tokenizer
    room = None if loaded.family is not Family.DECODER or not loaded.info.max_positions else max(
        1, loaded.info.max_positions - tokens)
    batch = model_inputs(loaded, read_text(loaded, text, max_tokens=room))
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    with context if context is not None else nullcontext():
        out = loaded.model.generate(**batch, max_new_tokens=tokens, do_sample=False, pad_token_id=pad)
    if loaded.family is Family.DECODER:
        out = out[:, batch["input_ids"].shape[1]:]
    return tok.decode(out[0], skip_special_tokens=True)


def kl(p_logits: torch.Tensor, q_logits: torch.Tensor) -> float:
    """KL(p ‖ q) in nats of two logit vectors."""
    lp, lq = p_logits.log_softmax(-1), q_logits.log_softmax(-1)
    return float((lp.exp() * (lp - lq)).sum())


def steer(loaded: Any, text: str, site: Any, vector: torch.Tensor, strength: float, *, k: int = 5,
          generate_tokens: int = 0) -> SteerResult:
    """Steered and unsteered top-``k`` predictions (and greedy generations of ``generate_tokens``)."""
    batch, position, where, notes = inputs(loaded, text)
    clean = read_logits(loaded, batch, position)
    steered = read_logits(loaded, batch, position, adding(site, vector, strength))
    if not torch.isfinite(steered).all():
        raise WorkbenchError(f"steering {site.name} with strength {strength:g} made the output NaN or infinite: "
                             "stopped (try a smaller strength)")
    result = SteerResult(Side(top(loaded, steered, k)), Side(top(loaded, clean, k)), site.name, float(strength),
                         where, kl(clean, steered), notes)
    if generate_tokens > 0:
        if loaded.family is Family.ENCODER:
            notes.append("generation not defined: an encoder does not generate (its masked predictions are shown)")
        else:
            result.unsteered.generation = generate(loaded, text, generate_tokens)
            result.steered.generation = generate(loaded, text, generate_tokens, adding(site, vector, strength))
    return result

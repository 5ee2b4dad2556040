"""The logit lens (nostalgebraist 2020): read every layer through the output head.

For each layer's hidden state we ask "if the model stopped here, what would it
predict?":

- decoders: the final norm and the LM head on hidden states 0..L-1; the last
  entry of ``hidden_states`` is already after the final norm (transformers
  appends the normed output), so it gets the head only — never normed twice;
- masked LMs: the MLM head (its transform and decoder) on every layer;
- encoder-decoders: the decoder's layers, fed as in ``encode`` (a target or
  the greedy output); T5 rescales by d_model^-0.5 before a tied head, BART
  adds ``final_logits_bias``.
Row L therefore equals the model's own output distribution. A text longer than the window is read through
the window of ``lm_workbench.engine.text_window`` (a decoder's last, so its last column is the model's next
token after the whole text); ``LensTable.notes`` says which tokens ("tokens a–b of n").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.anatomy.points import final_norm, logits_bias, mlm_head
from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.predictions import Candidate
from lm_workbench.engine.text_window import window_notes


@dataclass
class LensTable:
    side: str  # "decoder" (decoders and encoder-decoders) or "encoder" (masked LMs)
    layer_names: list[str]  # "embeddings", "layer 1", ..., "layer L"
    tokens: list[str]  # the input tokens, one per position shown
    top: list[list[list[Candidate]]]  # [layer][position][rank]
    total_positions: int = 0  # the text's positions (more than shown when ``logit_lens(positions=...)`` cut)
    notes: list[str] = field(default_factory=list)  # "tokens a–b of n" when the window cut the text

    def to_dict(self) -> dict:
        data = {
            "side": self.side,
            "tokens": self.tokens,
            "total_positions": self.total_positions or len(self.tokens),
            "layers": [
                {"layer": i, "name": name, "positions": [
                    {"position": p, "token": cands[0].token, "id": cands[0].id, "prob": cands[0].prob,
                     "candidates": [c.to_dict() for c in cands]} for p, cands in enumerate(row)]}
                for i, (name, row) in enumerate(zip(self.layer_names, self.top))
            ],
        }
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def _decoder_head(loaded: LoadedModel) -> tuple[Callable | None, Callable]:
    norm = final_norm(loaded)
    if norm is None:
        raise WorkbenchError(f"the logit lens does not know the final norm of {loaded.info.model_type} models")
    head = loaded.model.get_output_embeddings()
    return norm, head


def _mlm_head(loaded: LoadedModel) -> Callable:
    head = mlm_head(loaded.model)
    if head is None:
        raise WorkbenchError(f"the logit lens does not know the MLM head of {loaded.info.model_type} models")
    return head


def _seq2seq_head(loaded: LoadedModel) -> tuple[Callable | None, Callable]:
    model, config = loaded.model, loaded.config
    norm = final_norm(loaded, "decoder")
    lm_head = model.get_output_embeddings()
    scale = 1.0
    if config.model_type in ("t5", "mt5", "umt5") and getattr(config, "tie_word_embeddings", False):
        scale = config.d_model ** -0.5
    bias = logits_bias(model)

    def head(h: torch.Tensor) -> torch.Tensor:
        logits = lm_head(h * scale)
        return logits + bias if isinstance(bias, torch.Tensor) else logits

    return norm, head


POSITIONS_PER_CHUNK = 64  # positions whose vocabulary-wide logits exist at once (64 x 50k floats: 12.8 MB)


def lens_readout(loaded: LoadedModel, layers: int) -> Callable[[int, torch.Tensor], torch.Tensor]:
    """``readout(i, h)``: hidden state ``h`` [T, H] of entry ``i`` (0..layers-1) -> logits [T, vocab] through
    the output head (decoders: the final norm first, except on the last entry, which is already normed)."""
    if loaded.family is Family.ENCODER:
        head = _mlm_head(loaded)
        return lambda i, h: head(h)
    norm, head = _decoder_head(loaded) if loaded.family is Family.DECODER else _seq2seq_head(loaded)
    last = layers - 1

    def readout(i: int, h: torch.Tensor) -> torch.Tensor:
        return head(norm(h) if i < last and norm is not None else h)

    return readout


def lens_logits(loaded: LoadedModel, hidden: torch.Tensor) -> torch.Tensor:
    """[layers+1, T, H] hidden states -> [layers+1, T, vocab] logits (all at once: for small inputs and tests;
    ``logit_lens`` keeps only the top k of each layer and position)."""
    readout = lens_readout(loaded, hidden.shape[0])
    return torch.stack([readout(i, h) for i, h in enumerate(hidden)])


def top_k_per_position(loaded: LoadedModel, hidden: torch.Tensor, k: int,
                       chunk: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities, ids), each [layers+1, T, k]: the lens's top ``k`` for every layer and position.

    Layer by layer and ``chunk`` (default ``POSITIONS_PER_CHUNK``) positions at a time, so the memory it takes is ``chunk x vocabulary``
    floats, not ``layers x tokens x vocabulary`` (a 48-layer model on 512 tokens with a 50k vocabulary
    would otherwise hold 4.9 GB of logits). Softmax in float32 whatever the model's precision.
    """
    chunk = chunk or POSITIONS_PER_CHUNK
    n_layers, n_tokens = hidden.shape[0], hidden.shape[1]
    readout = lens_readout(loaded, n_layers)
    values: np.ndarray | None = None
    ids: np.ndarray | None = None
    for i in range(n_layers):
        for start in range(0, n_tokens, chunk):
            logits = readout(i, hidden[i, start:start + chunk]).float()
            if values is None:  # k is at most the vocabulary
                k = max(1, min(k, logits.shape[-1]))
                values = np.zeros((n_layers, n_tokens, k), dtype=np.float32)
                ids = np.zeros((n_layers, n_tokens, k), dtype=np.int64)
            top, where = torch.topk(torch.softmax(logits, dim=-1), k, dim=-1)
            values[i, start:start + chunk] = top.cpu().numpy()
            ids[i, start:start + chunk] = where.cpu().numpy()
            del logits, top, where
    assert values is not None and ids is not None
    return values, ids


@dataclass
class LensInput:
    """A text's hidden states as the lens reads them: [layers+1, T, H] on the model's device and dtype."""

    hidden: torch.Tensor
    tokens: list[str]
    side: str
    notes: list[str] = field(default_factory=list)  # which of the text's tokens were read, when cut


def lens_input(loaded: LoadedModel, text: str, *, target: str | None = None, tokenized: Any = None) -> LensInput:
    """Check the model has the head the lens reads through, run it on ``text`` and keep its hidden states
    (the decoder's for encoder-decoders); ``tokenized``: the encoding already made of ``text`` (the window's)."""
    info = loaded.info
    has_head = info.has_mlm_head if loaded.family is Family.ENCODER else info.has_lm_head
    if not has_head:
        head = "an MLM head" if loaded.family is Family.ENCODER else "an LM head"
        raise MissingHeadError(f"the logit lens needs {head}, and the checkpoint of {info.spec} has none")
    enc = encode(loaded, text, target=target, attentions=False, tokenized=tokenized)
    if loaded.family is Family.ENCODER_DECODER:
        hidden_np, tokens, side = enc.decoder.hidden_states, enc.decoder.tokens, "decoder"
    else:
        hidden_np, tokens, side = enc.hidden_states, enc.tokens, "encoder" if loaded.family is Family.ENCODER else "decoder"
    param = next(loaded.model.parameters())
    hidden = torch.from_numpy(np.ascontiguousarray(hidden_np)).to(device=param.device, dtype=param.dtype)
    return LensInput(hidden, list(tokens), side, window_notes(enc.tokenized))


def lens_table(loaded: LoadedModel, read: LensInput, *, k: int = 1, positions: int | None = None,
               translate: Callable[[torch.Tensor], torch.Tensor] | None = None) -> LensTable:
    """The top ``k`` of every layer at the first ``positions`` positions of ``read``; ``translate`` maps the
    [layers+1, T, H] hidden states first (the tuned lens's translators)."""
    hidden, tokens, total = read.hidden, read.tokens, len(read.tokens)
    if positions is not None and positions < total:
        hidden, tokens = hidden[:, :positions], tokens[:positions]
    with torch.inference_mode():
        if translate is not None:
            hidden = translate(hidden)
        values, ids = top_k_per_position(loaded, hidden, k)
    shown = sorted({int(i) for i in np.unique(ids)})  # only the ids that appear, not the whole vocabulary
    names = dict(zip(shown, loaded.tokenizer.convert_ids_to_tokens(shown)))
    top = [[[Candidate(names[int(i)] if names[int(i)] is not None else str(i), int(i), float(p))
             for i, p in zip(ids[layer, pos], values[layer, pos])]
            for pos in range(ids.shape[1])] for layer in range(ids.shape[0])]
    layer_names = ["embeddings"] + [f"layer {i}" for i in range(1, ids.shape[0])]
    return LensTable(read.side, layer_names, list(tokens), top, total_positions=total, notes=list(read.notes))


def logit_lens(loaded: LoadedModel, text: str, *, target: str | None = None, k: int = 1,
               positions: int | None = None) -> LensTable:
    """Every layer's top ``k`` at every position (the first ``positions`` only, when given: a view's cap; the
    model still reads the whole text, so those positions see what they would see in it)."""
    return lens_table(loaded, lens_input(loaded, text, target=target), k=k, positions=positions)

"""The language-model heads of the objectives' losses, with the speed levers where they apply.

``causal_lm_loss(model, inputs, labels)`` is the next-token loss of a decoder:
with the ``chunked_loss`` lever (``lm_workbench.engine.objectives.levers``) on and a model
whose logits are its output embedding applied to its body's last hidden
state (GPT-2, Llama, Mistral, Qwen2), the body runs alone and the head and
cross-entropy run in chunks (``chunked_ce``); else the model's full logits
and ``causal_lm_cross_entropy``.

``masked_lm_forward(model, inputs, labels)`` is a masked LM's forward pass:
with the ``sparse_mlm_head`` lever on and a BERT or RoBERTa masked-LM model,
the encoder runs alone and the vocabulary head (transform + decoder) runs only
at the positions with a label (about 15%); the result carries those rows'
logits and labels, which give the same loss as the full logits (rows without
a label score nothing) and the same gradients within float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from lm_workbench.engine.objectives.chunked_ce import linear_cross_entropy
from lm_workbench.engine.objectives.levers import current_levers, note_lever
from lm_workbench.engine.objectives.losses import causal_lm_cross_entropy
from lm_workbench.engine.objectives.preview import IGNORE_INDEX

# Model types whose causal-LM logits are exactly lm_head(base_model(...).last_hidden_state).
CHUNKABLE_CAUSAL_TYPES = frozenset({"gpt2", "llama", "mistral", "qwen2"})


def causal_lm_parts(model: Any) -> tuple[nn.Module, nn.Linear] | None:
    """(body, head) of a causal LM whose logits are ``head(body(...)[0])``; None for any other model."""
    config = getattr(model, "config", None)
    if getattr(config, "model_type", None) not in CHUNKABLE_CAUSAL_TYPES:
        return None
    if getattr(config, "final_logit_softcapping", None) or getattr(config, "logit_scale", None):
        return None
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    body = getattr(model, "base_model", None)
    if not isinstance(head, nn.Linear) or body is None or body is model:
        return None
    return body, head


def causal_lm_loss(model: Any, inputs: dict[str, torch.Tensor], labels: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy of ``labels`` (the logits at t score the label at t + 1)."""
    levers = current_levers()
    parts = causal_lm_parts(model) if levers.chunked_loss else None
    if parts is None:
        return causal_lm_cross_entropy(model(**inputs).logits, labels)
    body, head = parts
    hidden = body(**inputs, use_cache=False)[0]
    shifted = F.pad(labels[:, 1:], (0, 1), value=IGNORE_INDEX)
    note_lever("chunked_loss")
    return linear_cross_entropy(hidden, head.weight, head.bias, shifted, levers.chunk_rows)


@dataclass
class MaskedLMOutput:
    """A masked LM's forward pass for its loss.

    ``logits`` and ``labels`` pair up for ``token_cross_entropy``: either the
    full [batch, length, vocab] logits with the [batch, length] labels, or
    (``sparse``) the [n, vocab] logits of the n labelled positions with their
    [n] labels. ``hidden`` is the encoder's last hidden state [batch, length,
    H]; ``nsp_logits`` BERT's next-sentence scores when the model has them.
    """

    logits: torch.Tensor
    labels: torch.Tensor
    hidden: torch.Tensor
    nsp_logits: torch.Tensor | None
    sparse: bool

    def scored_logits(self) -> torch.Tensor:
        """[n, vocab]: the logits at the labelled positions, in row-major order."""
        return self.logits if self.sparse else self.logits[self.labels != IGNORE_INDEX]


def _masked_lm_parts(model: Any) -> tuple[nn.Module, nn.Module, nn.Module | None] | None:
    """(encoder, vocabulary head, next-sentence head or None) of a BERT / RoBERTa masked LM."""
    name = type(model).__name__
    if name == "BertForMaskedLM":
        return model.bert, model.cls.predictions, None
    if name == "BertForPreTraining":
        return model.bert, model.cls.predictions, model.cls.seq_relationship
    if name in ("RobertaForMaskedLM", "XLMRobertaForMaskedLM"):
        return model.roberta, model.lm_head, None
    return None


def masked_lm_forward(model: Any, inputs: dict[str, torch.Tensor], labels: torch.Tensor) -> MaskedLMOutput:
    """The forward pass of a masked LM (see ``MaskedLMOutput``); sparse when the lever is on and applies."""
    parts = _masked_lm_parts(model) if current_levers().sparse_mlm_head else None
    if parts is None:
        out = model(**inputs, output_hidden_states=True)
        logits = getattr(out, "logits", None)
        if logits is None:
            logits = out.prediction_logits
        return MaskedLMOutput(logits, labels, out.hidden_states[-1], getattr(out, "seq_relationship_logits", None),
                              sparse=False)
    encoder, head, nsp_head = parts
    out = encoder(**inputs)
    hidden = out[0]
    scored = labels != IGNORE_INDEX
    nsp_logits = nsp_head(out[1]) if nsp_head is not None else None
    note_lever("sparse_mlm_head")
    return MaskedLMOutput(head(hidden[scored]), labels[scored], hidden, nsp_logits, sparse=True)


__all__ = ["CHUNKABLE_CAUSAL_TYPES", "MaskedLMOutput", "causal_lm_loss", "causal_lm_parts", "masked_lm_forward"]

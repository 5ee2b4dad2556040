"""Cross-entropy over scored labels, for encoder, decoder and encoder-decoder heads.

Every objective's ``loss`` ends here: the mean negative log-likelihood of the
labels that are not -100, computed in float32 whatever the model's precision.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from lm_workbench.engine.objectives.preview import IGNORE_INDEX


def model_device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except (StopIteration, AttributeError):
        return torch.device("cpu")


def token_cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of ``labels`` (any shape) under ``logits`` (same shape + vocab); 0 when none is scored.

    The sum over the scored positions divided by their number (at least 1):
    no ``bool(tensor)`` test, so the CPU never waits for the device and
    ``torch.compile`` sees no graph break; with nothing scored the sum is 0
    and the graph stays, so ``backward()`` still works.
    """
    flat_labels = labels.reshape(-1)
    total = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), flat_labels, ignore_index=IGNORE_INDEX,
                            reduction="sum")
    return total / (flat_labels != IGNORE_INDEX).sum().clamp(min=1)


def causal_lm_cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Next-token loss: the logits at position t score the label at t + 1.

    The labels move left (the last position gets -100) rather than the
    logits right: slicing [B, T, V] logits copies them, forward and backward,
    which on a CPU costs as much as a layer of a tiny model.
    """
    shifted = F.pad(labels[:, 1:], (0, 1), value=IGNORE_INDEX)
    return token_cross_entropy(logits, shifted)


def decoder_inputs_from_labels(model: Any, labels: torch.Tensor) -> torch.Tensor:
    """The decoder's inputs for teacher forcing: labels shifted right after the start token."""
    prepare = getattr(model, "prepare_decoder_input_ids_from_labels", None)
    if prepare is not None:
        return prepare(labels=labels)
    config = model.config
    start = getattr(config, "decoder_start_token_id", None)
    pad = getattr(config, "pad_token_id", None) or 0
    shifted = labels.new_full(labels.shape, pad)
    shifted[:, 1:] = labels[:, :-1]
    shifted[:, 0] = start if start is not None else pad
    return shifted.masked_fill(shifted == IGNORE_INDEX, pad)


def seq2seq_denoising_loss(model: Any, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
    """Reconstruction loss of a denoising objective (BART, T5): the decoder, teacher-forced, writes the labels."""
    batch = batch.to(model_device(model))
    decoder_input_ids = decoder_inputs_from_labels(model, batch.labels)
    logits = model(**batch.inputs, decoder_input_ids=decoder_input_ids).logits
    loss = token_cross_entropy(logits, batch.labels)
    return loss, {"loss": float(loss.detach())}

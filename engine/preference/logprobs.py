"""A sequence's log-probability under a model, summed over its answer tokens only.

Labels are the input ids with -100 on every position that is not scored (the prompt, the padding). A decoder
predicts token t from positions < t, so its logits are shifted one place against the labels; an
encoder-decoder (BART, T5) reads the prompt in its encoder and the answer in its decoder by teacher forcing: its
decoder input is the labels shifted one place right behind the decoder start token, -100 replaced by the pad id
(``decoder_inputs``, transformers' ``shift_tokens_right`` / T5's ``_shift_right``), with a decoder attention mask
that is 0 on the padding; its logits are then aligned with its labels, and
log π(y|x) = Σ_t log p(y_t | x, y_<t) over the answer's tokens.
"""

from __future__ import annotations

import torch

IGNORE_INDEX = -100


def sequence_logprobs(logits: torch.Tensor, labels: torch.Tensor, *, shift: bool = True) -> torch.Tensor:
    """Σ_t log p(labels[t] | ...) over the positions whose label is not -100; ``[B, T, V]``, ``[B, T]`` -> ``[B]``.

    ``shift`` (decoders): the logits at position t-1 predict the label at t. Computed in float32 as
    ``logit - logsumexp`` at the label only, so no ``[B, T, V]`` log-softmax is kept.
    """
    if shift:
        logits, labels = logits[:, :-1, :], labels[:, 1:]
    mask = labels != IGNORE_INDEX
    safe = labels.masked_fill(~mask, 0).unsqueeze(-1)
    logits = logits.float()
    picked = logits.gather(-1, safe).squeeze(-1) - torch.logsumexp(logits, dim=-1)
    return (picked * mask).sum(-1)


def decoder_inputs(labels: torch.Tensor, start_id: int, pad_id: int) -> dict[str, torch.Tensor]:
    """An encoder-decoder's teacher-forcing inputs for ``labels`` ``[B, T]`` (right-padded with -100):
    ``decoder_input_ids`` = the start token then ``labels[:, :-1]`` (-100 -> ``pad_id``), as transformers'
    ``shift_tokens_right`` makes them; ``decoder_attention_mask`` 1 on each position whose label is scored (the
    start token and every answer token before the last), 0 on the padding after a shorter answer."""
    ids = labels.new_full(labels.shape, pad_id)
    ids[:, 0] = start_id
    ids[:, 1:] = labels[:, :-1].masked_fill(labels[:, :-1] == IGNORE_INDEX, pad_id)
    return {"decoder_input_ids": ids, "decoder_attention_mask": (labels != IGNORE_INDEX).long()}


def _start_and_pad(model: torch.nn.Module) -> tuple[int, int]:
    config = model.config
    start = getattr(config, "decoder_start_token_id", None)
    pad = getattr(config, "pad_token_id", None)
    if start is None:  # as transformers does: a model without one starts from its pad token
        start = pad
    if start is None or pad is None:
        from lm_workbench.engine.errors import WorkbenchError

        raise WorkbenchError("the encoder-decoder's config names no decoder_start_token_id / pad_token_id")
    return int(start), int(pad)


def model_logprobs(model: torch.nn.Module, inputs: dict[str, torch.Tensor], labels: torch.Tensor,
                   encoder_decoder: bool) -> torch.Tensor:
    """``model``'s summed answer log-probability of each row (``inputs``: input ids and attention mask;
    an encoder-decoder reads them in its encoder and ``labels`` shifted right in its decoder, a decoder reads
    the whole row)."""
    if encoder_decoder:
        start, pad = _start_and_pad(model)
        logits = model(**inputs, **decoder_inputs(labels, start, pad)).logits
        return sequence_logprobs(logits, labels, shift=False)
    logits = model(**inputs).logits
    return sequence_logprobs(logits, labels, shift=True)

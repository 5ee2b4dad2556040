"""The one decoding function every view shares: greedy or sampling, step by step.

``decode_job`` is a generator: it yields one ``DecodeStep`` per new token
(so a view can show tokens as they come and cancel between them) and returns
the generated ids. It uses the model's key/value cache, for decoders and for
encoder-decoders (the encoder runs once).

Sampling follows the usual order: logits / temperature, then top-k, then
top-p (nucleus: the smallest set of tokens whose probability reaches p), then
a draw from a seeded generator, so a seed reproduces a sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator

import torch

from lm_workbench.engine.models.families import Family
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken


@dataclass(frozen=True)
class SamplingConfig:
    temperature: float = 1.0
    top_k: int = 0  # 0 = no top-k filter
    top_p: float = 1.0  # 1.0 = no nucleus filter
    seed: int = 0


@dataclass(frozen=True)
class DecodeStep:
    index: int
    token_id: int
    prob: float  # probability of the chosen token under the (filtered) distribution


def filter_logits(logits: torch.Tensor, config: SamplingConfig) -> torch.Tensor:
    """Apply temperature, top-k and top-p to a [vocab] logit vector (float32)."""
    logits = logits.float() / max(config.temperature, 1e-6)
    if config.top_k and config.top_k < logits.numel():
        kth = torch.topk(logits, config.top_k).values[-1]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if config.top_p < 1.0:
        sorted_logits, order = torch.sort(logits, descending=True)
        probs = torch.softmax(sorted_logits, dim=-1)
        before = torch.cumsum(probs, dim=-1) - probs  # mass strictly before each token
        drop = before >= config.top_p  # keep tokens until the mass reaches p
        logits = logits.clone()
        logits[order[drop]] = float("-inf")
    return logits


def _start_ids(model: Any) -> int:
    config = model.config
    start = getattr(config, "decoder_start_token_id", None)
    if start is None:
        gen = getattr(model, "generation_config", None)
        start = getattr(gen, "decoder_start_token_id", None)
    if start is None:
        start = getattr(config, "bos_token_id", None) or getattr(config, "pad_token_id", 0) or 0
    return int(start)


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    for source in (model.config, getattr(model, "generation_config", None)):
        eos = getattr(source, "eos_token_id", None)
        if isinstance(eos, int):
            ids.add(eos)
        elif isinstance(eos, (list, tuple)):
            ids.update(int(e) for e in eos)
    if tokenizer is not None and tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    return ids


@torch.no_grad()
def decode_job(
    model: Any,
    family: Family,
    input_ids: list[int],
    *,
    tokenizer: Any = None,
    max_new_tokens: int = 64,
    sampling: SamplingConfig | None = None,
    stop_at_eos: bool = True,
    cancel: CancelToken = NEVER_CANCELLED,
) -> Generator[DecodeStep, None, list[int]]:
    """Generate up to ``max_new_tokens`` after a prompt (decoders) or for a source (encoder-decoders)."""
    device = next(model.parameters()).device
    ids = torch.tensor([input_ids], device=device)
    eos = _eos_ids(model, tokenizer) if stop_at_eos else set()
    generator = None
    if sampling is not None:
        generator = torch.Generator(device=device).manual_seed(sampling.seed)
    generated: list[int] = []

    if family is Family.ENCODER_DECODER:
        encoder_outputs = model.get_encoder()(input_ids=ids, attention_mask=torch.ones_like(ids))
        step_input = torch.tensor([[_start_ids(model)]], device=device)
        common = dict(encoder_outputs=encoder_outputs, attention_mask=torch.ones_like(ids))
    else:
        step_input = ids
        common = {}
    past = None
    for index in range(max_new_tokens):
        cancel.check()
        if family is Family.ENCODER_DECODER:
            out = model(decoder_input_ids=step_input, past_key_values=past, use_cache=True, **common)
        else:
            out = model(input_ids=step_input, past_key_values=past, use_cache=True)
        past = out.past_key_values
        logits = out.logits[0, -1]
        if sampling is None:
            probs = torch.softmax(logits.float(), dim=-1)
            token = int(torch.argmax(logits))
        else:
            probs = torch.softmax(filter_logits(logits, sampling), dim=-1)
            token = int(torch.multinomial(probs, 1, generator=generator))
        generated.append(token)
        yield DecodeStep(index, token, float(probs[token]))
        if token in eos:
            break
        step_input = torch.tensor([[token]], device=device)
    return generated

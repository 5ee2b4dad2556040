"""The batched forward passes behind prompt scoring, for several prompts at once.

Each function takes prompts already tokenized with their answers' token ids and returns, per prompt, the
log-probability of every answer token and the model's own top-k at the answer position.

- ``cloze_log_probs``: every masked row all prompts need (left-to-right or PLL), identical rows once, right
  padded with an attention mask, a few rows per pass (a masked LM's logits cover every position).
- ``decoder_log_probs``: the prompts right-padded in one pass with the cache on; single-token answers are
  read at each prompt's last position; multi-token answers continue from the cache (each row picks its
  prompt's cache, with the prompt's padding masked and positions continuing the prompt's own) in one pass.
- ``encoder_decoder_log_probs``: the encoder reads the padded sources once; every answer is one row of one
  decoder pass, teacher-forced after the decoder's start token.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from lm_workbench.engine.decoding import _start_ids
from lm_workbench.engine.predictions import Candidate, top_k as top_k_candidates

CLOZE_ROWS_PER_PASS = 16

Scored = tuple[list[list[float]], list[Candidate]]  # per answer its tokens' log-probs; the top-k


def _device(loaded: Any) -> Any:
    return next(loaded.model.parameters()).device


def _pad_id(tokenizer: Any) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return int(candidate)
    return 0


def _padded(rows: Sequence[Sequence[int]], pad: int, device: Any) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.tensor([list(r) + [pad] * (width - len(r)) for r in rows], device=device)
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows], device=device)
    return ids, mask


@torch.inference_mode()
def cloze_log_probs(loaded: Any, prompts: Sequence[tuple[list[int], int, list[list[int]]]], multi_token: str,
                    top_k: int) -> list[Scored]:
    """``prompts``: (ids with one mask at the slot, the slot's index, each answer's ids)."""
    tokenizer, model = loaded.tokenizer, loaded.model
    mask = tokenizer.mask_token_id
    rows: dict[tuple[int, ...], int] = {}
    plans = []  # per prompt: (its single-mask row, per answer [(row, position, token)])
    for ids, slot, answers in prompts:
        def row(part: list[int]) -> int:
            return rows.setdefault(tuple(ids[:slot] + part + ids[slot + 1:]), len(rows))

        own = row([mask])
        steps = []
        for aids in answers:
            n = len(aids)
            parts = ([aids[:i] + [mask] + aids[i + 1:] for i in range(n)] if multi_token == "pll"
                     else [aids[:i] + [mask] * (n - i) for i in range(n)])  # left to right
            steps.append([(row(part), slot + i, aids[i]) for i, part in enumerate(parts)])
        plans.append((own, slot, steps))
    wanted: dict[int, set[int]] = {}
    for own, slot, steps in plans:
        wanted.setdefault(own, set()).add(slot)
        for answer in steps:
            for r, p, _ in answer:
                wanted.setdefault(r, set()).add(p)
    keys = list(rows)
    device, pad = _device(loaded), _pad_id(tokenizer)
    kept: dict[tuple[int, int], torch.Tensor] = {}  # (row, position) -> logits [V]
    for start in range(0, len(keys), CLOZE_ROWS_PER_PASS):
        chunk = keys[start:start + CLOZE_ROWS_PER_PASS]
        ids, attention = _padded(chunk, pad, device)
        logits = model(input_ids=ids, attention_mask=attention).logits
        for b in range(len(chunk)):
            for p in wanted.get(start + b, ()):
                kept[(start + b, p)] = logits[b, p].float()
    log_probs = {key: torch.log_softmax(v, dim=-1) for key, v in kept.items()}
    return [([[float(log_probs[(r, p)][t]) for r, p, t in answer] for answer in steps],
             top_k_candidates(kept[(own, slot)], tokenizer, top_k)) for own, slot, steps in plans]


@torch.inference_mode()
def decoder_log_probs(loaded: Any, prompts: Sequence[tuple[list[int], list[list[int]]]], top_k: int
                      ) -> list[Scored]:
    """``prompts``: (the prompt's ids, each answer's ids)."""
    tokenizer, model = loaded.tokenizer, loaded.model
    device, pad = _device(loaded), _pad_id(tokenizer)
    ids, attention = _padded([p for p, _ in prompts], pad, device)
    lengths = [len(p) for p, _ in prompts]
    out = model(input_ids=ids, attention_mask=attention, use_cache=True)
    last = [out.logits[b, n - 1].float() for b, n in enumerate(lengths)]
    first = [torch.log_softmax(v, dim=-1) for v in last]
    scores = [[[float(first[b][aids[0]])] for aids in answers] for b, (_, answers) in enumerate(prompts)]
    longer = [(b, a) for b, (_, answers) in enumerate(prompts) for a, aids in enumerate(answers) if len(aids) > 1]
    if longer:
        rows = [prompts[b][1][a][:-1] for b, a in longer]
        width = max(len(r) for r in rows)
        which = torch.tensor([b for b, _ in longer], device=device)
        past = out.past_key_values
        past.batch_select_indices(which)  # each row continues its own prompt's cache
        cont = torch.tensor([r + [pad] * (width - len(r)) for r in rows], device=device)
        mask = torch.cat([attention[which], torch.ones(len(rows), width, dtype=attention.dtype, device=device)], 1)
        positions = torch.tensor([[lengths[b] + j for j in range(width)] for b, _ in longer], device=device)
        logits = model(input_ids=cont, attention_mask=mask, position_ids=positions, past_key_values=past,
                       use_cache=False).logits
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        for row, (b, a) in enumerate(longer):
            aids = prompts[b][1][a]
            scores[b][a] += [float(log_probs[row, j - 1, aids[j]]) for j in range(1, len(aids))]
    return [(scores[b], top_k_candidates(last[b], tokenizer, top_k)) for b in range(len(prompts))]


@torch.inference_mode()
def encoder_decoder_log_probs(loaded: Any, prompts: Sequence[tuple[list[int], list[list[int]]]], top_k: int
                              ) -> list[Scored]:
    """``prompts``: (the encoder's ids, each answer's ids)."""
    tokenizer, model = loaded.tokenizer, loaded.model
    device, pad = _device(loaded), _pad_id(tokenizer)
    source, source_mask = _padded([p for p, _ in prompts], pad, device)
    encoded = model.get_encoder()(input_ids=source, attention_mask=source_mask)
    start = _start_ids(model)
    pairs = [(b, aids) for b, (_, answers) in enumerate(prompts) for aids in answers]
    which = torch.tensor([b for b, _ in pairs], device=device)
    width = max(len(aids) for _, aids in pairs)
    rows = torch.tensor([[start] + aids[:-1] + [pad] * (width - len(aids)) for _, aids in pairs], device=device)
    encoded.last_hidden_state = encoded.last_hidden_state[which]
    logits = model(encoder_outputs=encoded, attention_mask=source_mask[which], decoder_input_ids=rows).logits
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    scores: list[list[list[float]]] = [[] for _ in prompts]
    first_row: dict[int, int] = {}
    for row, (b, aids) in enumerate(pairs):
        scores[b].append([float(log_probs[row, j, t]) for j, t in enumerate(aids)])
        first_row.setdefault(b, row)
    return [(scores[b], top_k_candidates(logits[first_row[b], 0].float(), tokenizer, top_k))
            for b in range(len(prompts))]

"""Answering prompts through a chat template, greedy or sampled with a fixed seed, and scoring the answers.

``answer_prompts`` renders each prompt with the generation prompt (``generation_prompt_ids``: the tokens
training saw before an answer), generates in batches (decoders left-padded) until the end token or
``max_new_tokens``, and returns the new text of each. Sampling draws with ``torch.manual_seed(seed)`` set before
each batch, so the same prompts, model and seed give the same answers.

Scores: ``exact_match`` is 1 when the answer equals the reference after lower-casing, collapsing whitespace and
stripping surrounding punctuation ("Paris." = "paris"); ``rougeL`` is ROUGE-L F (``lm_workbench.engine.maths.metrics``).
``scores_by_category`` gives both per category with the count.
"""

from __future__ import annotations

import string
from typing import Any, Sequence

import torch

from lm_workbench.engine.instruct.template import ChatTemplate, SkipRecord, generation_prompt_ids
from lm_workbench.engine.maths import metrics

SAMPLING = {"temperature": 0.8, "top_p": 0.95}  # the "sampled" column of the before/after table


def is_encoder_decoder(model: Any) -> bool:
    config = getattr(model, "config", None)
    if config is None and hasattr(model, "get_base_model"):
        config = model.get_base_model().config
    return bool(getattr(config, "is_encoder_decoder", False))


def model_window(model: Any) -> int | None:
    config = getattr(model, "config", None)
    for name in ("n_positions", "max_position_embeddings"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _device(model: Any) -> torch.device:
    return next(model.parameters()).device


@torch.no_grad()
def answer_prompts(model: Any, tokenizer: Any, template: ChatTemplate, prompts: Sequence[Any], *, max_length: int,
                   max_new_tokens: int = 32, sample: bool = False, seed: int = 0, batch_size: int = 16,
                   sampling: dict[str, float] | None = None) -> list[str]:
    """The model's answer to each prompt (text, or messages before the answer); see the module. ``sampling``
    (``temperature``, ``top_p``, ``top_k``) replaces ``SAMPLING`` when sampling."""
    was_training = model.training
    model.eval()
    encoder_decoder = is_encoder_decoder(model)
    window = model_window(model)
    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (eos if eos is not None else 0)
    # a decoder's prompt and answer share its window: the prompt keeps at least half of it
    room = max_length if encoder_decoder or not window else min(max_length, max(window // 2, window - max_new_tokens))
    device, out = _device(model), []
    for start in range(0, len(prompts), batch_size):
        chunk = prompts[start:start + batch_size]
        rows = []
        for prompt in chunk:
            try:
                rows.append(generation_prompt_ids(tokenizer, template, prompt, room, encoder_decoder=encoder_decoder))
            except SkipRecord:
                rows.append([eos if eos is not None else pad])
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            if encoder_decoder:  # the encoder reads right-padded rows
                ids[i, :len(row)], mask[i, :len(row)] = torch.tensor(row), 1
            else:  # a decoder continues each row from its end: left padding
                ids[i, width - len(row):], mask[i, width - len(row):] = torch.tensor(row), 1
        new_tokens = max_new_tokens if encoder_decoder or not window else max(1, min(max_new_tokens, window - width))
        kwargs: dict[str, Any] = {"max_new_tokens": new_tokens, "pad_token_id": pad, "num_beams": 1}
        if eos is not None:
            kwargs["eos_token_id"] = eos
        if sample:
            torch.manual_seed(seed + start)
            kwargs.update(do_sample=True, **{"top_k": 0, **SAMPLING, **(sampling or {})})
        else:
            kwargs["do_sample"] = False
        generated = model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), **kwargs)
        new = generated if encoder_decoder else generated[:, width:]
        for row in new:
            out.append(tokenizer.decode(row.tolist(), skip_special_tokens=True).strip())
    model.train(was_training)
    return out


def normalize(text: str) -> str:
    return " ".join(text.casefold().split()).strip(string.punctuation + " ")


def exact_match(answer: str, reference: str) -> float:
    return float(normalize(answer) == normalize(reference))


def scores(answers: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """``exact_match`` and ``rougeL`` means over the pairs (see the module)."""
    n = len(answers) or 1
    return {"exact_match": sum(exact_match(a, r) for a, r in zip(answers, references)) / n,
            "rougeL": sum(metrics.rouge_l(a, r) for a, r in zip(answers, references)) / n}


def scores_by_category(answers: Sequence[str], references: Sequence[str],
                       categories: Sequence[str | None]) -> dict[str, dict[str, float]]:
    """Per category (examples without one are left out): ``count``, ``exact_match``, ``rougeL``."""
    out: dict[str, dict[str, float]] = {}
    for name in sorted({c for c in categories if c}):
        picked = [i for i, c in enumerate(categories) if c == name]
        out[name] = {"count": len(picked), **scores([answers[i] for i in picked], [references[i] for i in picked])}
    return out


def answer_budget(tokenizer: Any, references: Sequence[str], max_length: int, slack: int = 4) -> int:
    """New tokens enough for the longest reference (plus ``slack`` and the end token), at most ``max_length``."""
    longest = max((len(tokenizer(r, add_special_tokens=False)["input_ids"]) for r in references), default=16)
    return max(1, min(max_length, longest + slack + 1))

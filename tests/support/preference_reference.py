"""Preference tuning computed by hand for the tests: the plain template written out, a row's answer log-probability
summed position by position, and DPO's metrics from per-pair numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch


def hand_ids(tokenizer, prompt: str, answer: str) -> tuple[list[int], list[int]]:
    """The plain template written out: the prompt's tokens, then the answer's and the end-of-text token."""
    prompt_ids = tokenizer(f"### Instruction:\n{prompt}\n\n### Response:\n", add_special_tokens=False)["input_ids"]
    answer_ids = tokenizer(answer, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    return list(prompt_ids), list(answer_ids)


def hand_logprob(model, prompt_ids: list[int], answer_ids: list[int]) -> float:
    """Σ over the answer's tokens of log softmax(logits at the position before)[token], one unpadded row."""
    ids = torch.tensor([prompt_ids + answer_ids])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].double()
    total = 0.0
    for k, token in enumerate(answer_ids):
        total += float(torch.log_softmax(logits[len(prompt_ids) + k - 1], dim=-1)[token])
    return total


def pair_logprobs(model, tokenizer, pairs: list[dict]) -> list[tuple[float, float]]:
    """(log π(chosen|x), log π(rejected|x)) per pair, each row on its own."""
    return [(hand_logprob(model, *hand_ids(tokenizer, p["prompt"], p["chosen"])),
             hand_logprob(model, *hand_ids(tokenizer, p["prompt"], p["rejected"]))) for p in pairs]


def dpo_by_hand(policy: list[tuple[float, float]], reference: list[tuple[float, float]], beta: float) -> dict:
    """Mean DPO loss, mean reward margin and the share of positive margins over the pairs."""
    margins = [beta * ((pc - rc) - (pr - rr)) for (pc, pr), (rc, rr) in zip(policy, reference)]
    losses = [math.log1p(math.exp(-m)) if m > -30 else -m for m in margins]  # -log σ(m)
    return {"loss": sum(losses) / len(losses), "reward_margin": sum(margins) / len(margins),
            "preference_accuracy": sum(m > 0 for m in margins) / len(margins)}


def course_subset(folder: Path, categories: tuple[str, ...]) -> tuple[Path, Path]:
    """The shipped demo pairs of ``categories``: (training file, held-out file) written into ``folder``."""
    from lm_workbench.engine.finetune.demo import demo_path, demo_validation_path

    out = []
    for source, name in ((demo_path("preference"), "train.jsonl"),
                         (demo_validation_path("preference"), "validation.jsonl")):
        rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        path = folder / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows if r["category"] in categories), encoding="utf-8")
        out.append(path)
    return out[0], out[1]


def read_pairs(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]

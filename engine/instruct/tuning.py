"""What the fine-tuning job does differently for the instruct task: encoding, validation, before/after.

``lm_workbench.engine.finetune.train.finetune_job`` calls these when ``data.task == "instruct"`` (``data.template`` is the
``ChatTemplate``):

- ``encode_sets``: both sets as features (``lm_workbench.engine.instruct.encoding``), what was skipped or cut, and the
  counts (``trained_tokens``, ``total_tokens`` of one pass over the training set);
- ``validate``: greedy answers to the validation prompts scored against their references (``exact_match``,
  ``rougeL``), each row (prompt, reference, answer, category) and the per-category scores;
- ``answer_held_out``: the held-out prompts (the first ``BEFORE_AFTER_MAX`` validation examples) answered
  greedily and sampled (seed fixed) — called on the base model before the method is applied ("before") and on
  the tuned model at the end ("after"); ``before_after`` puts the two side by side with their scores.
"""

from __future__ import annotations

from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.instruct.answers import answer_budget, answer_prompts, exact_match, is_encoder_decoder, scores, \
    scores_by_category
from lm_workbench.engine.instruct.encoding import EncodedSet, encode_examples

BEFORE_AFTER_MAX = 64  # held-out prompts in the before/after table


def encode_sets(tokenizer: Any, data: Any, max_length: int, model: Any) -> tuple[EncodedSet, EncodedSet]:
    encoder_decoder = is_encoder_decoder(model)
    train = encode_examples(tokenizer, data.template, data.train, max_length, encoder_decoder=encoder_decoder)
    validation = encode_examples(tokenizer, data.template, data.validation, max_length,
                                 encoder_decoder=encoder_decoder)
    if not train.features:
        first = f" (first: line {train.skipped[0][0]}: {train.skipped[0][1]})" if train.skipped else ""
        raise WorkbenchError(f"no training record fits the template and the window of {max_length} tokens{first}")
    if not validation.features:
        raise WorkbenchError(f"no validation record fits the template and the window of {max_length} tokens")
    return train, validation


def validate(model: Any, tokenizer: Any, template: Any, examples: Sequence[Any], max_length: int,
             batch_size: int = 16) -> tuple[dict[str, float], list[dict[str, Any]], dict[str, dict[str, float]]]:
    """(metrics, rows, per-category scores) of the greedy answers to ``examples``' prompts."""
    references = [e.reference for e in examples]
    answers = answer_prompts(model, tokenizer, template, [e.prompt_messages for e in examples],
                             max_length=max_length, max_new_tokens=answer_budget(tokenizer, references, max_length),
                             batch_size=batch_size)
    rows = [{"index": i, "text": e.prompt_text, "gold": e.reference, "predicted": a,
             "correct": exact_match(a, e.reference) == 1.0, "confidence": None, "category": e.category}
            for i, (e, a) in enumerate(zip(examples, answers))]
    return scores(answers, references), rows, scores_by_category(answers, references, [e.category for e in examples])


def answer_held_out(model: Any, tokenizer: Any, template: Any, examples: Sequence[Any], max_length: int,
                    seed: int, batch_size: int = 16) -> dict[str, list[str]]:
    """``{"greedy": [...], "sampled": [...]}`` for the first ``BEFORE_AFTER_MAX`` of ``examples``."""
    held = list(examples)[:BEFORE_AFTER_MAX]
    references = [e.reference for e in held]
    budget = answer_budget(tokenizer, references, max_length)
    prompts = [e.prompt_messages for e in held]
    common = dict(max_length=max_length, max_new_tokens=budget, batch_size=batch_size)
    return {"greedy": answer_prompts(model, tokenizer, template, prompts, **common),
            "sampled": answer_prompts(model, tokenizer, template, prompts, sample=True, seed=seed, **common)}


def before_after(examples: Sequence[Any], before: dict[str, list[str]], after: dict[str, list[str]],
                 seed: int) -> dict[str, Any]:
    """The table: a row per held-out prompt, the greedy answers' scores before and after, per category too."""
    held = list(examples)[:len(before["greedy"])]
    references = [e.reference for e in held]
    categories = [e.category for e in held]
    rows = [{"prompt": e.prompt_text, "category": e.category, "reference": e.reference,
             "before_greedy": before["greedy"][i], "after_greedy": after["greedy"][i],
             "before_sampled": before["sampled"][i], "after_sampled": after["sampled"][i]}
            for i, e in enumerate(held)]
    by_category = {}
    cats_before = scores_by_category(before["greedy"], references, categories)
    cats_after = scores_by_category(after["greedy"], references, categories)
    for name in cats_before:
        by_category[name] = {"count": cats_before[name]["count"],
                             "before": {k: v for k, v in cats_before[name].items() if k != "count"},
                             "after": {k: v for k, v in cats_after[name].items() if k != "count"}}
    return {"rows": rows, "before": scores(before["greedy"], references),
            "after": scores(after["greedy"], references), "categories": by_category,
            "sampling": {"seed": seed, "temperature": 0.8, "top_p": 0.95}}

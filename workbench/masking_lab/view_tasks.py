"""What the masking lab runs on the worker thread: registry discovery, corrupting, sampling, reconstructing.

Nothing here touches widgets. ``corrupt`` draws the preview for a seed (the
shared ``lm_workbench.masking_lab.preview`` logic, so it equals ``corrupt --seed``)
and, when the loaded model can reconstruct the corrupted input, its
predictions: top-1 token and probability at every scored position for an
encoder with an MLM head, the greedy output for an encoder-decoder with an LM
head. Otherwise ``note`` says why not.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.progress import CancelToken
from lm_workbench.engine.wording import with_article
from lm_workbench.masking_lab.preview import (
    configured_rates, encode_text, preview_for_seed, preview_json, sample_rates, tokens_of,
)


def model_name(spec: str) -> str:
    name = str(spec).rstrip("/").split("/")[-1]
    return {"minilm": "MiniLM"}.get(name, name)


def discover_registry(settings: Any, cancel: CancelToken) -> Any:
    from lm_workbench.extensions.registry import ObjectiveRegistry

    return ObjectiveRegistry.discover(settings)


def load_other_tokenizer(spec: str, trust_remote_code: bool, cancel: CancelToken) -> Any:
    """Another model's tokenizer (``course:t5`` names this machine's course T5: ``CourseModelComing`` while the
    window's build makes it, so the view says so and asks again when it arrives)."""
    from lm_workbench.models.spec_kinds import load_spec_tokenizer

    return load_spec_tokenizer(spec, trust_remote_code=trust_remote_code)


def corrupt(registry: Any, name: str, tokenizer: Any, text: str, config: Any, seed: int, loaded: Any,
            models_tokenizer: bool, cancel: CancelToken) -> dict[str, Any]:
    objective = registry.objective(name)
    objective.check_requirements(tokenizer)
    ids, full = encode_text(tokenizer, text)
    preview = preview_for_seed(registry, name, ids, tokenizer, config, seed)
    data = preview_json(preview, tokenizer)
    cancel.check()
    predictions, note = reconstruct(loaded, objective, preview, tokenizer, models_tokenizer, cancel)
    return {
        "objective": name, "seed": seed, "ids": ids, "full_length": full, "preview": preview,
        "tokens": data["tokens"], "input_tokens": data["input_tokens"], "label_tokens": data["label_tokens"],
        "predictions": predictions, "note": note,
    }


def reconstruct(loaded: Any, objective: Any, preview: Any, tokenizer: Any, models_tokenizer: bool,
                cancel: CancelToken) -> tuple[dict[str, Any] | None, str | None]:
    """The model's predictions for the corrupted input, or None and the reason."""
    if loaded is None:
        return None, "Load a model to see it reconstruct the corrupted input."
    info, name = loaded.info, model_name(loaded.info.spec)
    if not models_tokenizer:
        return None, "Predictions need the loaded model's own tokenizer; this preview uses another one."
    head = objective.requires.head
    if head in ("mlm", "pretraining-nsp"):
        if info.family != "encoder":
            return None, (f"{name} is {with_article(info.family)} model: {objective.name} is reconstructed by an encoder "
                          "with an MLM head.")
        if not info.has_mlm_head:
            return None, f"{name} has no MLM head (its checkpoint was saved without one): no predictions to show."
        return _mlm_predictions(loaded, preview, tokenizer), None
    if not preview.labels_aligned:
        if info.family != "encoder-decoder" or not info.has_lm_head:
            return None, f"{name} cannot reconstruct this: {objective.name} needs an encoder-decoder with an LM head."
        return _greedy(loaded, preview, tokenizer, cancel), None
    return None, f"{objective.name} hides nothing to reconstruct here; the Predictions tab shows next-token guesses."


def _mlm_predictions(loaded: Any, preview: Any, tokenizer: Any) -> dict[str, Any]:
    import torch

    device = loaded.device.torch_device
    ids = torch.tensor([preview.input_ids], device=device)
    with torch.inference_mode():
        logits = loaded.model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0]
    positions = preview.scored_positions
    top, probs = [], []
    for pos in positions:
        p = torch.softmax(logits[pos].float(), dim=-1)
        best = int(torch.argmax(logits[pos]))
        top.append(best)
        probs.append(float(p[best]))
    return {"kind": "mlm", "positions": positions, "ids": top, "tokens": tokens_of(tokenizer, top), "probs": probs}


def _greedy(loaded: Any, preview: Any, tokenizer: Any, cancel: CancelToken) -> dict[str, Any]:
    import torch

    from lm_workbench.engine.decoding import decode_job
    from lm_workbench.engine.models.families import Family

    ids, probs = [], []
    with torch.inference_mode():
        for step in decode_job(loaded.model, Family.ENCODER_DECODER, list(preview.input_ids), tokenizer=tokenizer,
                                 max_new_tokens=len(preview.labels) + 4, cancel=cancel):
            ids.append(step.token_id)
            probs.append(step.prob)
    return {"kind": "seq2seq", "ids": ids, "tokens": tokens_of(tokenizer, ids), "probs": probs}


def statistics(registry: Any, name: str, tokenizer: Any, text: str, config: Any, seed: int, n: int,
               cancel: CancelToken) -> dict[str, Any]:
    ids, _ = encode_text(tokenizer, text)
    measured = sample_rates(registry, name, ids, tokenizer, config, seed, n, cancel=cancel)
    return {"n": n, "seed": seed, "measured": measured, "configured": configured_rates(config)}

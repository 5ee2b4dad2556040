"""A preference run's model answering a prompt (``lm-workbench predict RUN --text PROMPT``): the prompt written
through the chat template the run trained with (its manifest's ``chat_template``), then greedy decoding. An
encoder-decoder (BART, T5) trained with no template answers as a sequence-to-sequence run's model does: the prompt
text to its encoder as is, greedy decoding (``lm_workbench.engine.finetune.inference.generate``); one that started from an
instruct run with a template reads the prompt written through it."""

from __future__ import annotations

import math
from typing import Any

import torch

from lm_workbench.engine.instruct.answers import model_window

MAX_NEW_TOKENS = 48


def run_template(manifest: dict[str, Any], tokenizer: Any) -> Any:
    """The run's stored chat template, or ``auto`` for a manifest without one."""
    from lm_workbench.engine.instruct.template import ChatTemplate, resolve_template

    stored = manifest.get("chat_template")
    if isinstance(stored, dict) and isinstance(stored.get("text"), str) and stored["text"].strip():
        return ChatTemplate(stored["text"], str(stored.get("source") or "run"))
    return resolve_template(tokenizer, "auto")


def answer(model: Any, tokenizer: Any, manifest: dict[str, Any], prompt: str,
           max_new_tokens: int = MAX_NEW_TOKENS) -> dict[str, Any]:
    """``{"text", "confidence"}``: the greedy answer and exp(mean log-probability of its tokens)."""
    from lm_workbench.engine.instruct.template import generation_prompt_ids

    if getattr(getattr(model, "config", None), "is_encoder_decoder", False):
        from lm_workbench.engine.finetune.inference import generate
        from lm_workbench.engine.instruct.template import as_messages, render

        stored = manifest.get("chat_template") or {}
        source, text = str(stored.get("source") or "none"), prompt
        if source != "none" and isinstance(stored.get("text"), str) and stored["text"].strip():
            # started from an instruct run with a template: the prompt as that run wrote it (generation prompt on)
            text = render(tokenizer, run_template(manifest, tokenizer), as_messages(prompt), add_generation_prompt=True)
        else:
            source = "none"
        found = generate(model, tokenizer, [text], int(manifest.get("max_length") or 128))[0]
        return {"text": found["text"], "confidence": found["confidence"], "template": source}
    template = run_template(manifest, tokenizer)
    window = model_window(model) or 10**9
    max_new_tokens = max(1, min(max_new_tokens, window // 2))
    room = min(int(manifest.get("max_length") or 128), window - max_new_tokens)
    ids = generation_prompt_ids(tokenizer, template, prompt, room)  # cut from the left to fit the window
    device = next(model.parameters()).device
    inputs = torch.tensor([ids], device=device)
    eos = tokenizer.eos_token_id
    model.eval()
    with torch.no_grad():
        out = model.generate(input_ids=inputs, attention_mask=torch.ones_like(inputs), max_new_tokens=max_new_tokens,
                             do_sample=False, num_beams=1, output_scores=True, return_dict_in_generate=True,
                             pad_token_id=eos if tokenizer.pad_token_id is None else tokenizer.pad_token_id)
    new = out.sequences[0, len(ids):]
    scores = [float(torch.log_softmax(s[0].float(), -1)[token]) for s, token in zip(out.scores, new.tolist())]
    keep = [s for s, token in zip(scores, new.tolist()) if token != eos]
    confidence = math.exp(sum(keep) / len(keep)) if keep else 0.0
    return {"text": tokenizer.decode(new, skip_special_tokens=True).strip(), "confidence": confidence,
            "template": template.source}

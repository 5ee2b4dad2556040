"""Forgetting: how much worse the base model's own task (masked-LM or next-token) got from fine-tuning.

``measure_forgetting(base_folder, tuned_model, tokenizer)`` scores one held-out text twice with the base's
LM head: *before*, the base model as saved; *after*, the same head reading the fine-tuned task model's
last hidden states (the method in place: LoRA's updates, adapters, a prefix, changed weights). Forgetting
is after − before, in nats per predicted token (positive: the base task got worse).

- Encoders: masked-LM loss at fixed positions (every token whose index i has (7919·i + 13·chunk) mod 100
  < 15 is replaced by the mask token, all of them: no 80/10/10), so before and after see the same input.
- Decoders: next-token loss over every position.
- A base without an LM head (a bare encoder such as all-MiniLM-L6-v2, saved without its MLM head) cannot
  be scored: ``objective`` is None and ``note`` says so. Encoder-decoders are not scored either (their task
  model is the LM itself; its validation loss is the measure).

Methods that leave every base weight untouched (LoRA, adapters, prefix and prompt tuning, IA³ ...) forget
nothing once their adapter is removed: only with the adapter in place can the base task change, which is
what this measures. Full fine-tuning and BitFit change the base weights themselves.

The text (``held_out_text``) is prose from Python's own documentation (``pydoc_data.topics``, on every
machine), cut into ``chunks`` windows of ``max_length`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

HELD_OUT_TOPICS = ("execmodel", "exceptions", "naming")
MASK_SHARE = 15  # per cent of positions masked for a masked-LM score


@dataclass
class Forgetting:
    objective: str | None  # "masked-LM" | "next-token" | None (not measured)
    before: float | None  # nats per predicted token
    after: float | None
    tokens: int  # predicted tokens scored
    note: str = ""

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    def as_json(self) -> dict[str, Any]:
        return {"objective": self.objective, "before": self.before, "after": self.after, "delta": self.delta,
                "tokens": self.tokens, "note": self.note}


def held_out_text() -> str:
    """Prose from the standard library's documentation topics (the same on every machine)."""
    from pydoc_data.topics import topics

    return "\n".join(topics[name] for name in HELD_OUT_TOPICS if name in topics)


def _lm_model(base_folder: Path) -> tuple[Any, str | None, str]:
    """(the base's LM model in eval mode, its objective, "") or (None, None, why not)."""
    import transformers

    from lm_workbench.engine.models.families import Family, detect_family
    from lm_workbench.engine.models.loading import quiet_transformers

    config = transformers.AutoConfig.from_pretrained(base_folder)
    family = detect_family(config)
    name = Path(base_folder).name if Path(base_folder).name != "model" else Path(base_folder).parent.name
    if family is Family.ENCODER_DECODER:
        return None, None, "not measured for encoder-decoders: the fine-tuned model is the LM itself"
    archs = list(getattr(config, "architectures", None) or [])
    suffixes = ("ForMaskedLM", "ForPreTraining") if family is Family.ENCODER else ("ForCausalLM", "LMHeadModel")
    no_head = f"{name} has no LM head ({', '.join(archs) or 'a bare model'}): forgetting cannot be measured"
    if archs and not any(a.endswith(suffixes) for a in archs):
        return None, None, no_head
    auto = transformers.AutoModelForMaskedLM if family is Family.ENCODER else transformers.AutoModelForCausalLM
    quiet_transformers()
    model, info = auto.from_pretrained(base_folder, output_loading_info=True)
    prefix = getattr(model, "base_model_prefix", "")
    if any(not prefix or not key.startswith(prefix + ".") for key in info.get("missing_keys", ()) or ()):
        return None, None, no_head
    return model.eval(), ("masked-LM" if family is Family.ENCODER else "next-token"), ""


def _special_ends(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after a text ([CLS] ... [SEP]; none for GPT-2)."""
    plain = tokenizer("words", add_special_tokens=False)["input_ids"]
    full = tokenizer("words")["input_ids"]
    for start in range(len(full) - len(plain) + 1):
        if full[start:start + len(plain)] == plain:
            return full[:start], full[start + len(plain):]
    return [], []


def _windows(tokenizer: Any, text: str, max_length: int, chunks: int) -> list[list[int]]:
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    before, after = _special_ends(tokenizer)
    width = max(8, max_length - len(before) - len(after))
    return [before + ids[i:i + width] + after
            for i in range(0, min(len(ids), width * chunks), width) if len(ids[i:i + width]) >= 2]


def _masked(ids: list[int], chunk: int, tokenizer: Any) -> tuple[list[int], list[int]]:
    special = set(tokenizer.all_special_ids)
    inputs, labels = list(ids), [-100] * len(ids)
    for i, token in enumerate(ids):
        if token not in special and (7919 * i + 13 * chunk) % 100 < MASK_SHARE:
            inputs[i], labels[i] = tokenizer.mask_token_id, token
    return inputs, labels


def _last_hidden(tuned_model: Any, input_ids: Any) -> Any:
    """The fine-tuned task model's last hidden states for ``input_ids`` (a prompt's extra positions dropped)."""
    out = tuned_model(input_ids=input_ids, attention_mask=input_ids.new_ones(input_ids.shape),
                      output_hidden_states=True)
    if getattr(out, "hidden_states", None) is None:
        from lm_workbench.engine.errors import WorkbenchError

        raise WorkbenchError("the fine-tuned model does not return its hidden states (a feature-based model "
                             "reads a frozen encoder, so it changes none of them)")
    hidden = out.hidden_states[-1]
    return hidden[:, -input_ids.shape[1]:]


def _scored_loss(lm: Any, input_ids: Any, labels: Any, hidden: Any = None) -> tuple[float, int]:
    """(summed cross-entropy, predicted tokens) of the LM's logits; with ``hidden``, the head reads those
    hidden states instead of its own base model's (a forward hook replaces the base model's output)."""
    import torch

    backbone = getattr(lm, lm.base_model_prefix)
    handle = None
    if hidden is not None:
        def replace(module: Any, args: Any, output: Any) -> Any:
            output["last_hidden_state"] = hidden
            return output

        handle = backbone.register_forward_hook(replace)
    try:
        logits = lm(input_ids=input_ids, attention_mask=input_ids.new_ones(input_ids.shape)).logits
    finally:
        if handle is not None:
            handle.remove()
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1),
                                             ignore_index=-100, reduction="sum")
    return float(loss), int((labels != -100).sum())


def measure_forgetting(base_folder: str | Path, tuned_model: Any, tokenizer: Any, *, text: str | None = None,
                       max_length: int = 128, chunks: int = 8) -> Forgetting:
    """The base task's loss on a held-out text before and after fine-tuning (see the module docstring)."""
    import torch

    lm, objective, why = _lm_model(Path(base_folder))
    if lm is None:
        return Forgetting(None, None, None, 0, why)
    if objective == "masked-LM" and tokenizer.mask_token_id is None:
        return Forgetting(None, None, None, 0, "the tokenizer has no mask token: no masked-LM score")
    positions = [getattr(lm.config, k, None) for k in ("max_position_embeddings", "n_positions")]
    max_length = min([max_length] + [int(p) for p in positions if isinstance(p, int) and p > 0])
    device = next(tuned_model.parameters()).device
    lm.to(device)
    was_training = tuned_model.training
    tuned_model.eval()
    totals = {"before": 0.0, "after": 0.0}
    count = 0
    try:
        with torch.no_grad():
            for c, ids in enumerate(_windows(tokenizer, text or held_out_text(), max_length, chunks)):
                if objective == "masked-LM":
                    inputs, labels = _masked(ids, c, tokenizer)
                else:
                    inputs, labels = ids, ids[1:] + [-100]  # position i predicts token i + 1
                input_ids = torch.tensor([inputs], device=device)
                label_ids = torch.tensor([labels], device=device)
                before, n = _scored_loss(lm, input_ids, label_ids)
                after, _ = _scored_loss(lm, input_ids, label_ids, hidden=_last_hidden(tuned_model, input_ids))
                totals["before"] += before
                totals["after"] += after
                count += n
    finally:
        tuned_model.train(was_training)
    if count == 0:
        return Forgetting(objective, None, None, 0, "the held-out text gave no token to score")
    return Forgetting(objective, totals["before"] / count, totals["after"] / count, count,
                      f"{objective} loss on {count} held-out tokens (Python's documentation), with the method in place")

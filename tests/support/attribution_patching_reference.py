"""Attribution patching computed by hand for the tests: plain forward hooks on the tiny GPT-2's modules and
torch.autograd.grad, no engine code."""

from __future__ import annotations

import torch

CLEAN, CORRUPT = "The name of the", "The value of the"  # 4 tokens each for the tiny GPT-2
ANSWER, WRONG = "Ġlist", "Ġclass"


def _modules(model, site):
    blocks = list(model.transformer.h)
    return {"resid": blocks, "attn": [b.attn for b in blocks], "mlp": [b.mlp for b in blocks]}[site]


def by_hand(model, tokenizer, site):
    """[layers][tokens]: (clean − corrupt) · ∂metric/∂activation at the corrupted run, divided by clean − corrupt,
    with hooks that keep each module's output and torch.autograd.grad of logit(answer) − logit(wrong)."""
    vocab = tokenizer.get_vocab()
    answer, wrong = vocab[ANSWER], vocab[WRONG]
    modules = _modules(model, site)

    def run(text, grad):
        kept = {}
        handles = [m.register_forward_hook(
            lambda _m, _i, out, i=i: kept.__setitem__(i, out[0] if isinstance(out, tuple) else out))
            for i, m in enumerate(modules)]
        try:
            with torch.set_grad_enabled(grad):
                ids = torch.tensor([tokenizer(text)["input_ids"]])
                embeds = model.transformer.wte(ids).detach().requires_grad_(grad)
                logits = model(inputs_embeds=embeds).logits[0, -1].double()
                metric = logits[answer] - logits[wrong]
        finally:
            for h in handles:
                h.remove()
        return metric, [kept[i] for i in range(len(modules))]

    clean_metric, clean_acts = run(CLEAN, False)
    corrupt_metric, corrupt_acts = run(CORRUPT, True)
    grads = torch.autograd.grad(corrupt_metric, corrupt_acts)
    span = float(clean_metric) - float(corrupt_metric.detach())
    return [((c[0].double() - k[0].detach().double()) * g[0].double()).sum(-1) / span
            for c, k, g in zip(clean_acts, corrupt_acts, grads)], float(clean_metric), float(corrupt_metric.detach())

"""Each objective's loss on a real tiny model: a finite scalar equal to a cross-entropy computed here
from the model's logits and the batch's labels, and one optimiser step on it lowers it."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import LossContext
from tests.support.objective_helpers import objective, tokenizer_for

TEXTS = [
    "The bank raised its rates. Savers were pleased.",
    "We sat by the river bank and watched the boats go by. It was a quiet afternoon.",
    "Functions return values.",
    "A class statement defines a new class. Its body is executed in a new namespace.",
]
CASES = [("clm", "gpt2"), ("mlm", "bert"), ("spanbert", "bert"), ("bart", "bart"), ("t5-span", "t5")]


@functools.lru_cache(maxsize=None)
def _model_class(kind: str):
    import transformers as tf

    return {"gpt2": tf.AutoModelForCausalLM, "bert": tf.AutoModelForMaskedLM}.get(kind, tf.AutoModelForSeq2SeqLM)


def nll(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood of the labels that are not -100, written out by hand."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    scored = labels != -100
    picked = logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -(picked * scored).sum() / scored.sum()


def span_boundary_nll(model, head, hidden, batch) -> torch.Tensor:
    """SpanBERT's SBO loss from the spans in the previews, one token at a time (Joshi et al. 2020, eq. 1)."""
    embeddings = model.get_input_embeddings().weight
    losses = []
    for b, preview in enumerate(batch.previews):
        for start, count in preview.spans:
            for i in range(start, start + count):
                h0 = torch.cat([hidden[b, start - 1], hidden[b, start + count], head.position_embeddings.weight[i - start]])
                h1 = F.layer_norm(F.gelu(head.linear1(h0)), (h0.shape[0] // 3,), head.norm1.weight, head.norm1.bias,
                                  head.norm1.eps)
                y = F.layer_norm(F.gelu(head.linear2(h1)), h1.shape, head.norm2.weight, head.norm2.bias, head.norm2.eps)
                logits = embeddings @ y + head.bias
                losses.append(-torch.log_softmax(logits, dim=-1)[preview.original[i]])
    return torch.stack(losses).mean()


def independent_loss(name: str, model, heads, batch) -> torch.Tensor:
    ids, mask, labels = batch.inputs["input_ids"], batch.inputs["attention_mask"], batch.labels
    if name == "clm":
        return nll(model(input_ids=ids, attention_mask=mask).logits[:, :-1], labels[:, 1:])
    if name in ("mlm", "spanbert"):
        out = model(input_ids=ids, attention_mask=mask, output_hidden_states=True)
        loss = nll(out.logits, labels)
        if name == "spanbert":
            loss = loss + span_boundary_nll(model, heads["sbo"], out.hidden_states[-1], batch)
        return loss
    config = model.config  # encoder-decoders: the decoder reads the target shifted right after the start token
    decoder_inputs = torch.cat([torch.full_like(labels[:, :1], config.decoder_start_token_id), labels[:, :-1]], dim=1)
    decoder_inputs = decoder_inputs.masked_fill(decoder_inputs == -100, config.pad_token_id)
    return nll(model(input_ids=ids, attention_mask=mask, decoder_input_ids=decoder_inputs).logits, labels)


@pytest.mark.parametrize("name, kind", CASES)
def test_loss_is_the_cross_entropy_and_a_step_lowers_it(tiny_models, name, kind):
    torch.manual_seed(0)
    tok = tokenizer_for(tiny_models, kind)
    model = _model_class(kind).from_pretrained(tiny_models[kind]).eval()  # eval: no dropout, a repeatable loss
    obj = objective(name)
    config = obj.default_config()
    heads = obj.build_heads(config, model.config)
    ids = tok(TEXTS)["input_ids"]
    batch = obj.make_batch(ids, tok, np.random.default_rng(0), config)
    assert batch.inputs["input_ids"].shape[0] == len(TEXTS)

    context = LossContext(config, heads=heads)
    loss, metrics = obj.loss(model, batch, context)
    assert loss.dim() == 0 and torch.isfinite(loss)
    assert metrics["loss"] == pytest.approx(float(loss.detach()))
    with torch.no_grad():
        expected = independent_loss(name, model, heads, batch)
    assert float(loss.detach()) == pytest.approx(float(expected), rel=1e-5, abs=1e-5)
    if name == "spanbert":
        assert metrics["mlm"] + metrics["sbo"] == pytest.approx(metrics["loss"], rel=1e-6)

    params = list(model.parameters()) + [p for h in heads.values() for p in h.parameters()]
    optimizer = torch.optim.Adam(params, lr=1e-3)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    after, _ = obj.loss(model, batch, context)
    assert float(after.detach()) < float(loss.detach())


def test_loss_runs_through_the_registry_guard(tiny_models):
    from lm_workbench.extensions.registry import ObjectiveRegistry

    registry = ObjectiveRegistry.discover(root=tiny_models.root / "no-plugins-here")
    tok = tokenizer_for(tiny_models, "bert")
    model = _model_class("bert").from_pretrained(tiny_models["bert"]).eval()
    config = registry.objective("mlm").default_config()
    batch = registry.make_batch("mlm", tok(TEXTS)["input_ids"], tok, np.random.default_rng(1), config)
    loss, _ = registry.loss("mlm", model, batch, LossContext(config))
    assert torch.isfinite(loss)

"""Every method that declares the instruct task adapts a decoder (GPT-2, Llama-style) and an encoder-decoder
(BART): its loss is the language-model loss on the answer tokens only (checked against a cross-entropy written
here over the labelled positions), a step changes it, and the saved method reloads onto a fresh base with
identical logits."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer
from lm_workbench.engine.instruct.template import IGNORE_INDEX, PLAIN_TEMPLATE, ChatTemplate, encode_prompt_answer, pad_encoded
from lm_workbench.extensions.registry import FineTuneMethodRegistry

METHODS = {name: m for name, m in FineTuneMethodRegistry.discover().methods().items() if "instruct" in m.tasks}
PAIRS = [("reverse: list key", "key list"), ("plural of item", "items")]


def test_full_lora_and_prefix_declare_instruct():
    assert {"full", "lora", "prefix"} <= set(METHODS)


CASES = [("full", "gpt2"), ("lora", "llama"), ("prefix", "gpt2"), ("lora", "bart"), ("prefix", "bart"),
         ("parallel-adapter", "llama"), ("mam", "bart")]  # He et al.'s methods, ported to these families


@pytest.mark.parametrize("name, kind", CASES)
def test_method_trains_on_the_answers_and_reloads(tiny_models, tmp_path, kind, name):
    torch.manual_seed(0)
    folder = tiny_models[kind]
    tokenizer = load_task_tokenizer(folder)
    encoder_decoder = kind == "bart"
    template = ChatTemplate(PLAIN_TEMPLATE, "plain")
    batch = pad_encoded([encode_prompt_answer(tokenizer, template, p, a, 48, encoder_decoder=encoder_decoder)
                         for p, a in PAIRS], tokenizer.pad_token_id or 0)
    method = METHODS[name]
    config = method.default_config()
    if name == "prefix":
        config.num_virtual_tokens = 4
    if name == "mam":
        config.prefix_length = 4
    model = method.apply(build_task_model(folder, "instruct"), config, "instruct")
    model.train()
    out = model(**batch)
    if not encoder_decoder:  # the causal LM loss: next-token cross-entropy over the labelled positions only
        logits, labels = out.logits[:, :-1].float(), batch["labels"][:, 1:]
        keep = labels != IGNORE_INDEX
        expected = torch.nn.functional.cross_entropy(logits[keep], labels[keep])
        assert float(out.loss) == pytest.approx(float(expected), rel=1e-5)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    out.loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        after = model(**batch)
    assert float(after.loss) != pytest.approx(float(out.loss), abs=1e-7)
    method.save(model, tmp_path / "saved")
    reloaded = method.load(build_task_model(folder, "instruct"), tmp_path / "saved")
    with torch.no_grad():
        assert torch.equal(reloaded(**batch).logits, after.logits)

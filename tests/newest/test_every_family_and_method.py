"""Every fine-tuning method on every family it can adapt, on whatever releases are installed (the newest lane).

For each tiny model family (BERT, GPT-2, Llama-style, BART, T5) and each task its heads cover, every built-in
method adapts the task model built by the real ``build_task_model``, trains two steps on the tiny model's own
tokens (the loss must be finite and the trained tensors must move), saves what it trained and puts it back onto
a fresh base: the reloaded model predicts bit for bit what the trained one did. A pair the workbench refuses
must be listed in ``REFUSED`` with the words of its one-line reason, so a new release that breaks a pair
cannot hide as a refusal. (ELMo is not fine-tuned through these methods: it has no transformers task head.)
"""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.task_model import build_task_model
from lm_workbench.extensions.registry import FineTuneMethodRegistry

pytestmark = pytest.mark.newest

METHODS = FineTuneMethodRegistry.discover().methods()
FAMILY_TASKS = {"bert": ("seq-cls", "token-cls", "qa"), "gpt2": ("seq-cls", "token-cls", "qa"),
                "llama": ("seq-cls", "token-cls"), "bart": ("seq-cls", "seq2seq"), "t5": ("seq2seq",)}
NO_BOTTLENECK = "bottleneck adapters support BERT-style encoders and GPT-2"
REFUSED = {  # (method, family, task) -> words of the one-line reason
    ("prefix", "bart", "seq-cls"): "sequence-to-sequence task only",
    ("prompt", "bart", "seq-cls"): "does not accept",
    ("features", "bart", "seq-cls"): "needs an encoder or decoder task model",
    ("houlsby", "bart", "seq-cls"): NO_BOTTLENECK, ("pfeiffer", "bart", "seq-cls"): NO_BOTTLENECK,
    ("houlsby", "llama", "seq-cls"): NO_BOTTLENECK, ("pfeiffer", "llama", "seq-cls"): NO_BOTTLENECK,
    ("houlsby", "llama", "token-cls"): NO_BOTTLENECK, ("pfeiffer", "llama", "token-cls"): NO_BOTTLENECK,
    ("bitfit", "llama", "seq-cls"): "no bias parameters",  # its token head has one: token-cls trains
    ("bitfit", "t5", "seq2seq"): "no bias parameters",
    # issue 34: peft 0.21's LoHa, LoKr and OFT adapt nn.Linear only
    **{(name, "gpt2", task): "transformers' Conv1D" for name in ("loha", "lokr", "oft")
       for task in ("seq-cls", "token-cls", "qa")},
    # the parallel adapters attach to every family here (BART and T5 since the MAM port); MAM's prefix part does not
    # take BART's classification head, as prefix tuning does not
    ("mam", "bart", "seq-cls"): "its prefix part cannot: prefix tuning cannot adapt BartForSequenceClassification",
}
LABELS = ["no", "yes"]
TEXTS = ["the name of the class", "a list is a value", "what is the type of it"]
CASES = [(name, family, task) for family, tasks in FAMILY_TASKS.items() for task in tasks
         for name in sorted(METHODS) if task in METHODS[name].tasks]


def _batch(tokenizer, task: str) -> tuple[dict, dict]:
    enc = tokenizer(TEXTS, padding=True, return_tensors="pt")
    inputs = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    rows, length = enc["input_ids"].shape
    if task == "seq-cls":
        targets = {"labels": torch.tensor([0, 1, 0])}
    elif task == "token-cls":
        targets = {"labels": torch.where(enc["attention_mask"] > 0, torch.arange(length).expand(rows, -1) % 2, -100)}
    elif task == "qa":
        targets = {"start_positions": torch.tensor([1, 2, 1]), "end_positions": torch.tensor([2, 3, 3])}
    else:
        targets = {"labels": tokenizer(["a name", "a list", "a type"], padding=True, return_tensors="pt")["input_ids"]}
    return inputs, targets


def _outputs(model, task: str, inputs: dict) -> list[torch.Tensor]:
    with torch.no_grad():
        if task == "seq2seq":
            decoder = torch.full((inputs["input_ids"].shape[0], 3), model.config.decoder_start_token_id)
            return [model(**inputs, decoder_input_ids=decoder).logits]
        out = model(**inputs)
        return [out.start_logits, out.end_logits] if task == "qa" else [out.logits]


@pytest.mark.parametrize("name, family, task", CASES)
def test_the_method_trains_saves_and_reloads_on_the_family(tiny_models, tmp_path, name, family, task):
    from transformers import AutoTokenizer

    folder = tiny_models[family]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    labels = LABELS if task in ("seq-cls", "token-cls") else ()
    method = METHODS[name]
    torch.manual_seed(0)
    base = build_task_model(folder, task, labels)
    base.config.pad_token_id = tokenizer.pad_token_id
    try:
        model = method.apply(base, method.default_config(), task)
    except WorkbenchError as error:
        assert (name, family, task) in REFUSED, f"{name} refused {family} {task}: {error}"
        assert REFUSED[(name, family, task)] in str(error) and len(str(error).splitlines()) == 1
        return
    assert (name, family, task) not in REFUSED, "a pair listed as refused now works: take it off the list"
    trained = [p for p in model.parameters() if p.requires_grad]
    before = [p.detach().clone() for p in trained]
    optimizer = torch.optim.AdamW(trained, lr=1e-2)
    inputs, targets = _batch(tokenizer, task)
    model.train()
    for _ in range(2):
        loss = model(**inputs, **targets).loss
        assert torch.isfinite(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    assert any(not torch.equal(p.detach(), b) for p, b in zip(trained, before))
    expected = _outputs(model, task, inputs)
    method.save(model, tmp_path / "saved")
    torch.manual_seed(1)  # another fresh head: what was saved must replace it
    fresh = build_task_model(folder, task, labels)
    fresh.config.pad_token_id = tokenizer.pad_token_id
    reloaded = method.load(fresh, tmp_path / "saved")
    for got, want in zip(_outputs(reloaded, task, inputs), expected):
        assert torch.equal(got, want)

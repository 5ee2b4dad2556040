"""The ``distillation`` objective (Hinton et al. 2015; DistilBERT): a frozen teacher, three loss terms."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import IGNORE_INDEX, LossContext, WorkbenchError, freeze_auxiliary
from lm_workbench.plugins.objectives.distillation import Distillation, distillation_kl
from tests.support.objective_helpers import objective as _entry_point, tokenizer_for

TEXTS = [
    "The bank raised its rates. Savers were pleased.",
    "We sat by the river bank and watched the boats go by. It was a quiet afternoon.",
    "Functions return values.",
    "A class statement defines a new class. Its body is executed in a new namespace.",
]


def objective(name: str):
    """Through its entry point once registered; until then ``distillation`` is taken from its module."""
    from importlib.metadata import entry_points

    if name == "distillation" and not [ep for ep in entry_points(group="lm_workbench.objectives") if ep.name == name]:
        return Distillation()
    return _entry_point(name)


@pytest.fixture(scope="module")
def tok(tiny_models):
    return tokenizer_for(tiny_models, "bert")


@pytest.fixture
def teacher(tiny_models):
    from transformers import BertForMaskedLM

    return BertForMaskedLM.from_pretrained(str(tiny_models["bert"])).eval()


def student_like(teacher, **changes):
    """A smaller BertForMaskedLM with the teacher's vocabulary (and tokenizer)."""
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig.from_dict({**teacher.config.to_dict(), "num_hidden_layers": 1, **changes})
    torch.manual_seed(1)
    return BertForMaskedLM(cfg).eval()


def config(**changes):
    obj = objective("distillation")
    cfg = obj.default_config()
    cfg.teacher = "tiny-bert"
    for k, v in changes.items():
        setattr(cfg, k, v)
    obj.check_config(cfg)
    return cfg


def batch_for(tok, cfg, seed=0):
    return objective("distillation").make_batch(tok(TEXTS)["input_ids"], tok, np.random.default_rng(seed), cfg)


def test_the_api_keeps_the_teacher_out_of_the_trainable_heads(tok, teacher):
    obj = objective("distillation")
    cfg = config()
    assert obj.auxiliary_models(cfg) == {"teacher": "tiny-bert"}
    assert obj.build_heads(cfg, teacher.config) == {}
    with pytest.raises(WorkbenchError, match="set teacher"):
        obj.auxiliary_models(obj.default_config())
    obj.check_config(obj.default_config())  # the defaults validate (a plugin requirement)
    with pytest.raises(WorkbenchError, match="temperature"):
        config(temperature=0.0)
    assert objective("mlm").auxiliary_models(objective("mlm").default_config()) == {}


def test_the_loss_equals_the_three_terms_written_out(tok, teacher):
    student = student_like(teacher)
    cfg = config(temperature=3.0, alpha_kd=0.7, alpha_mlm=1.3, alpha_cos=0.4, mask_rate=0.3)
    batch = batch_for(tok, cfg)
    loss, metrics = objective("distillation").loss(student, batch, LossContext(cfg, aux={"teacher": teacher}))

    ids, mask, labels = batch.inputs["input_ids"], batch.inputs["attention_mask"], batch.labels
    with torch.no_grad():
        s = student(input_ids=ids, attention_mask=mask, output_hidden_states=True)
        t = teacher(input_ids=ids, attention_mask=mask, output_hidden_states=True)
    scored = labels != IGNORE_INDEX
    T = 3.0
    s_masked, t_masked = s.logits[scored], t.logits[scored]
    p_t = torch.softmax(t_masked / T, dim=-1)
    kl_rows = (p_t * (torch.log(p_t) - torch.log_softmax(s_masked / T, dim=-1))).sum(-1)
    kd = kl_rows.mean() * T ** 2
    mlm = F.cross_entropy(s_masked, labels[scored])
    keep = mask.bool()
    hs, ht = s.hidden_states[-1][keep], t.hidden_states[-1][keep]
    cos = (1 - (hs * ht).sum(-1) / (hs.norm(dim=-1) * ht.norm(dim=-1))).mean()
    expected = 0.7 * kd + 1.3 * mlm + 0.4 * cos
    assert float(loss.detach()) == pytest.approx(float(expected), rel=1e-5)
    assert metrics["kd_loss"] == pytest.approx(float(kd), rel=1e-5)
    assert metrics["mlm_loss"] == pytest.approx(float(mlm), rel=1e-5)
    assert metrics["cos_loss"] == pytest.approx(float(cos), rel=1e-5)
    assert metrics["loss"] == pytest.approx(float(expected), rel=1e-5)


def test_a_student_equal_to_its_teacher_has_no_distillation_loss(tok, teacher):
    student = copy.deepcopy(teacher)
    cfg = config()
    _, metrics = objective("distillation").loss(student, batch_for(tok, cfg), LossContext(cfg, aux={"teacher": teacher}))
    assert metrics["kd_loss"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["cos_loss"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["mlm_loss"] > 0


def test_the_kl_helper_scales_by_t_squared():
    g = torch.Generator().manual_seed(0)
    s, t = torch.randn(7, 11, generator=g), torch.randn(7, 11, generator=g)
    plain = (torch.softmax(t, -1) * (torch.log_softmax(t, -1) - torch.log_softmax(s, -1))).sum(-1).mean()
    assert float(distillation_kl(s, t, 1.0)) == pytest.approx(float(plain), rel=1e-6)
    # At T=2 the term is the T=1 KL of the softened logits, times 4.
    assert float(distillation_kl(s, t, 2.0)) == pytest.approx(4 * float(distillation_kl(s / 2, t / 2, 1.0)), rel=1e-6)
    assert float(distillation_kl(t, t, 2.0)) == pytest.approx(0.0, abs=1e-7)


def test_the_teacher_gets_no_gradient_and_the_student_does(tok, teacher):
    student = student_like(teacher)
    assert all(p.requires_grad for p in teacher.parameters())  # even unfrozen, the loss keeps it out
    cfg = config()
    loss, _ = objective("distillation").loss(student, batch_for(tok, cfg), LossContext(cfg, aux={"teacher": teacher}))
    loss.backward()
    assert all(p.grad is None for p in teacher.parameters())
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in student.parameters())
    frozen = freeze_auxiliary(teacher)
    assert not frozen.training and not any(p.requires_grad for p in frozen.parameters())


def test_a_step_lowers_the_loss(tok, teacher):
    student = student_like(teacher)
    obj, cfg = objective("distillation"), config()
    batch, context = batch_for(tok, cfg), LossContext(cfg, aux={"teacher": teacher})
    loss, _ = obj.loss(student, batch, context)
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
    loss.backward()
    optimizer.step()
    after, _ = obj.loss(student, batch, context)
    assert float(after.detach()) < float(loss.detach())


def test_a_teacher_with_another_vocabulary_or_hidden_size_is_refused(tok, tiny_models, teacher):
    obj = objective("distillation")
    with pytest.raises(WorkbenchError, match="tokenizer differs"):
        obj.check_teacher(tokenizer_for(tiny_models, "gpt2"), tok)
    obj.check_teacher(tok, tok)
    narrow = student_like(teacher, hidden_size=16, intermediate_size=32, num_attention_heads=2)
    with pytest.raises(WorkbenchError, match="hidden size is 32 while the student's is 16"):
        obj.check_aux({"teacher": teacher}, narrow, config())
    obj.check_aux({"teacher": teacher}, narrow, config(alpha_cos=0.0))  # no cosine term: sizes may differ
    obj.check_aux({"teacher": teacher}, student_like(teacher), config())
    with pytest.raises(WorkbenchError, match="same vocabulary"):
        obj.check_aux({"teacher": teacher}, student_like(teacher, vocab_size=999), config(alpha_cos=0.0))
    with pytest.raises(WorkbenchError, match="needs the teacher"):
        obj.loss(student_like(teacher), batch_for(tok, config()), LossContext(config()))


def test_the_settings_reach_the_loss_through_its_context_not_the_batch(tok, teacher):
    student = student_like(teacher)
    cold, hot = config(alpha_mlm=0.0, alpha_cos=0.0, temperature=1.0), config(alpha_mlm=0.0, alpha_cos=0.0,
                                                                              temperature=4.0)
    batch = batch_for(tok, cold)
    assert set(batch.extras) == set()  # nothing tunnelled through the batch
    obj = objective("distillation")
    _, at_1 = obj.loss(student, batch, LossContext(cold, aux={"teacher": teacher}))
    _, at_4 = obj.loss(student, batch, LossContext(hot, aux={"teacher": teacher}))
    assert at_1["kd_loss"] != pytest.approx(at_4["kd_loss"], rel=1e-3)
    with pytest.raises(TypeError):
        LossContext(cold).aux["teacher"] = teacher  # the context's mappings are read-only

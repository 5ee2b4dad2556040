"""Next-sentence prediction as an option of ``mlm`` (Devlin et al. 2019): the pairs, the masking and the loss."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import IGNORE_INDEX, LossContext, PositionKind, WorkbenchError, config_fields
from tests.support.objective_helpers import objective, ordinary_ids, tokenizer_for, wrap

NSP = {"next_sentence_prediction": True}


@pytest.fixture(scope="module")
def tok(tiny_models):
    return tokenizer_for(tiny_models, "bert")


def config(**changes):
    obj = objective("mlm")
    cfg = obj.default_config()
    for k, v in {**NSP, **changes}.items():
        setattr(cfg, k, v)
    obj.check_config(cfg)
    return cfg


@functools.lru_cache(maxsize=None)
def _words_and_finals(tok) -> tuple[np.ndarray, list[int]]:
    """The ordinary ids that do not end a sentence, and the ids of ".", "!" and "?" (once per tokenizer)."""
    finals = [tok.convert_tokens_to_ids(t) for t in (".", "!", "?")]
    tokens = tok.convert_ids_to_tokens(list(range(len(tok))))
    pool = np.array([i for i in ordinary_ids(tok) if not tokens[i].lstrip("#").endswith((".", "!", "?"))])
    return pool, finals


def docs_with_sentences(tok, rng, n_docs):
    """Documents of 2-6 sentences, each ending with ".", "!" or "?"; returns ids and the sentence boundaries."""
    pool, finals = _words_and_finals(tok)
    docs, bounds = [], []
    for _ in range(n_docs):
        content, ends = [], []
        for _ in range(int(rng.integers(2, 7))):
            content += rng.choice(pool, size=int(rng.integers(2, 6))).tolist() + [int(rng.choice(finals))]
            ends.append(len(content))
        docs.append(wrap(tok, content))
        bounds.append(ends)
    return docs, bounds


def unmasked(preview) -> list[int]:
    return [lab if lab != IGNORE_INDEX else i for i, lab in zip(preview.input_ids, preview.labels)]


def segments_of(preview) -> tuple[list[int], list[int]]:
    ids, seg = unmasked(preview), preview.segments
    a = [t for t, s in zip(ids, seg) if s == 0][1:-1]  # without [CLS] and the first [SEP]
    b = [t for t, s in zip(ids, seg) if s == 1][:-1]  # without the last [SEP]
    return a, b


def draw_batches(tok, seeds, n_docs=4):
    obj = objective("mlm")
    for seed in seeds:
        rng = np.random.default_rng(seed)
        docs, bounds = docs_with_sentences(tok, rng, n_docs)
        yield docs, bounds, obj.make_batch(docs, tok, rng, config())


def test_config_field_and_requirements(tok):
    obj = objective("mlm")
    field = {f.name: f for f in config_fields(obj.Config)}["next_sentence_prediction"]
    assert field.default is False and "next-sentence" in field.help
    assert obj.requirements(obj.default_config()).head == "mlm"
    assert obj.requirements(config()).head == "pretraining-nsp"
    no_head = {"family": "encoder", "has_mlm_head": False, "spec": "x"}
    with pytest.raises(WorkbenchError, match="pre-training heads"):
        obj.check_requirements(tok, no_head, config())
    obj.check_requirements(tok, {"family": "encoder", "has_mlm_head": True}, config())


def test_is_next_half_of_the_time(tok):
    labels = []
    for _, _, batch in draw_batches(tok, range(2000)):
        labels += batch.inputs["next_sentence_label"].tolist()
    share = labels.count(0) / len(labels)
    assert len(labels) == 8000 and abs(share - 0.5) < 0.02, share


def test_pairs_follow_or_come_from_another_example(tok):
    cls_id, sep_id = tok.cls_token_id, tok.sep_token_id
    seen = {0: 0, 1: 0}
    for docs, bounds, batch in draw_batches(tok, range(200)):
        for i, (p, label) in enumerate(zip(batch.previews, batch.inputs["next_sentence_label"].tolist())):
            seen[label] += 1
            ids = unmasked(p)
            seg = p.segments
            # The frame: [CLS] A [SEP] B [SEP], segments 0 then 1, the original length budget filled.
            la = seg.count(0) - 2
            assert ids[0] == cls_id and ids[la + 1] == sep_id and ids[-1] == sep_id
            assert seg == [0] * (la + 2) + [1] * (len(ids) - la - 2)
            assert len(ids) <= len(docs[i])
            a, b = segments_of(p)
            content = docs[i][1:-1]
            if label == 0:  # IsNext: A is the first k sentences, B exactly what followed (one token trimmed)
                assert len(a) + len(b) == len(content) - 1
                assert any((a == content[:e] and b == content[e:-1]) or (a == content[:e - 1] and b == content[e:])
                           for e in bounds[i][:-1]), (a, b, content)
                assert all(p.origin[k] >= 0 for k, s in enumerate(seg[:-1]) if s == 1)
            else:  # NotNext: B is a run of another example, from one of its sentence starts
                assert a == content[: len(a)] and len(a) > 0
                others = [j for j in range(len(docs)) if j != i]
                assert any(docs[j][1:-1][s: s + len(b)] == b for j in others for s in [0] + bounds[j][:-1]), b
                b_at = [k for k, s in enumerate(seg) if s == 1][:-1]
                assert all(p.origin[k] == -1 for k in b_at)
                assert all(p.kinds[k] in (PositionKind.INSERTED, PositionKind.MASKED, PositionKind.RANDOM,
                                          PositionKind.KEPT) for k in b_at)
    assert min(seen.values()) > 300


def test_specials_are_never_masked_and_the_tensors_match_the_previews(tok):
    specials = {tok.cls_token_id, tok.sep_token_id, tok.pad_token_id}
    for _, _, batch in draw_batches(tok, range(100)):
        tti = batch.inputs["token_type_ids"]
        for row, p in enumerate(batch.previews):
            for k, (t, lab) in enumerate(zip(p.input_ids, p.labels)):
                if t in specials or unmasked(p)[k] in specials:
                    assert lab == IGNORE_INDEX and t == unmasked(p)[k]
            assert tti[row, : len(p.segments)].tolist() == p.segments
            assert tti[row, len(p.segments):].eq(0).all()
            assert p.to_dict()["segments"] == p.segments
        assert (batch.labels != IGNORE_INDEX).any()


def test_a_one_example_batch_is_refused(tok):
    docs, _ = docs_with_sentences(tok, np.random.default_rng(0), 1)
    with pytest.raises(WorkbenchError, match="at least 2 examples"):
        objective("mlm").make_batch(docs, tok, np.random.default_rng(0), config())
    # Without next-sentence prediction one example is fine.
    objective("mlm").make_batch(docs, tok, np.random.default_rng(0), objective("mlm").default_config())


@pytest.fixture
def pretraining_model(tiny_models):
    from transformers import BertConfig, BertForPreTraining

    torch.manual_seed(0)
    model = BertForPreTraining(BertConfig.from_pretrained(str(tiny_models["bert"])))
    return model.eval()


def test_the_loss_is_mlm_plus_nsp_and_a_step_lowers_it(tok, pretraining_model):
    obj = objective("mlm")
    docs, _ = docs_with_sentences(tok, np.random.default_rng(3), 6)
    batch = obj.make_batch(docs, tok, np.random.default_rng(3), config(mask_rate=0.3))
    loss, metrics = obj.loss(pretraining_model, batch, LossContext(config(mask_rate=0.3)))

    inputs = batch.inputs
    out = pretraining_model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"],
                            token_type_ids=inputs["token_type_ids"])
    out = type(out)(prediction_logits=out.prediction_logits.detach(),
                    seq_relationship_logits=out.seq_relationship_logits.detach())
    mlm = F.cross_entropy(out.prediction_logits.reshape(-1, out.prediction_logits.shape[-1]),
                          batch.labels.reshape(-1), ignore_index=-100)
    nsp = F.cross_entropy(out.seq_relationship_logits, inputs["next_sentence_label"])
    assert torch.allclose(loss, mlm + nsp, atol=1e-5)
    assert metrics["mlm_loss"] == pytest.approx(float(mlm), abs=1e-5)
    assert metrics["nsp_loss"] == pytest.approx(float(nsp), abs=1e-5)
    accuracy = (out.seq_relationship_logits.argmax(-1) == inputs["next_sentence_label"]).float().mean()
    assert metrics["nsp_accuracy"] == pytest.approx(float(accuracy))
    # transformers' own pre-training loss agrees.
    hf = pretraining_model(**inputs, labels=batch.labels).loss
    assert torch.allclose(loss, hf, atol=1e-5)

    optimizer = torch.optim.Adam(pretraining_model.parameters(), lr=1e-3)
    loss.backward()
    optimizer.step()
    after, _ = obj.loss(pretraining_model, batch, LossContext(config(mask_rate=0.3)))
    assert float(after.detach()) < float(loss.detach())


def test_an_mlm_only_model_is_refused_with_nsp_on(tok, tiny_models):
    from transformers import BertForMaskedLM

    obj = objective("mlm")
    docs, _ = docs_with_sentences(tok, np.random.default_rng(1), 2)
    batch = obj.make_batch(docs, tok, np.random.default_rng(1), config())
    with pytest.raises(WorkbenchError, match="pre-training heads"):
        obj.loss(BertForMaskedLM.from_pretrained(str(tiny_models["bert"])), batch, LossContext(config()))

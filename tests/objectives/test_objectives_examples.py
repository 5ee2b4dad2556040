"""Worked examples from the papers, built deterministically on the tiny models' tokenizers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import PositionKind as K
from tests.support.objective_helpers import objective, tokenizer_for


def test_t5_paper_example(tiny_models):
    """Raffel et al. 2020, figure 2: "Thank you <X> me to your party <Y> week." -> "<X> for inviting <Y> last <Z>"."""
    from lm_workbench.engine.plugin_api import apply_sentinels

    tok = tokenizer_for(tiny_models, "t5")
    text = "Thank you for inviting me to your party last week."
    enc = tok(text, return_offsets_mapping=True)
    dropped = [text.index(" for inviting"), text.index(" for inviting") + len(" for inviting")], \
              [text.index(" last"), text.index(" last") + len(" last")]
    noise = [any(a <= s and e <= b for a, b in dropped) and e > s for s, e in enc["offset_mapping"]]
    sentinels = [tok.convert_tokens_to_ids(f"<extra_id_{i}>") for i in range(8)]
    result = apply_sentinels(enc["input_ids"], noise, sentinels, tok.eos_token_id)

    pieces = lambda s: tok(s, add_special_tokens=False)["input_ids"]  # noqa: E731
    x, y, z = sentinels[:3]
    assert result.inputs == pieces("Thank you") + [x] + pieces(" me to your party") + [y] + pieces(" week.") + [
        tok.eos_token_id]
    assert result.targets == [x] + pieces(" for inviting") + [y] + pieces(" last") + [z, tok.eos_token_id]
    assert tok.decode(result.targets) == "<extra_id_0> for inviting<extra_id_1> last<extra_id_2></s>"
    assert [k for k in result.kinds if k is K.SENTINEL] == [K.SENTINEL] * 2
    assert [c for _, c in result.spans] == [len(pieces(" for inviting")), len(pieces(" last"))]


def test_apply_sentinels_edge_cases():
    from lm_workbench.engine.plugin_api import apply_sentinels

    sentinels = [100, 101, 102]
    r = apply_sentinels([1, 2, 3, 4], [True, True, False, True], sentinels, eos_id=9)
    assert (r.inputs, r.targets, r.origin) == ([100, 3, 101], [100, 1, 2, 101, 4, 102, 9], [-1, 2, -1])
    r = apply_sentinels([1, 2], [False, False], sentinels)
    assert (r.inputs, r.targets) == ([1, 2], [100])
    with pytest.raises(WorkbenchError, match="more than 3 sentinel"):
        apply_sentinels([1, 2, 3, 4, 5], [True, False, True, False, True], sentinels)


def test_random_spans_noise_mask_matches_t5_counts():
    from lm_workbench.engine.plugin_api import random_spans_noise_mask

    rng = np.random.default_rng(0)
    for length in (1, 2, 3, 10, 33, 34, 100, 512):
        mask = random_spans_noise_mask(length, rng)
        assert len(mask) == length
        if length >= 2:
            n_noise = min(max(int(np.round(length * 0.15)), 1), length - 1)
            assert mask.sum() == n_noise and not mask[0] and mask[-1]
            starts = int(np.sum(mask[1:] & ~mask[:-1]))
            assert starts == max(int(np.round(n_noise / 3)), 1)


def test_bart_rotation_keeps_bos_and_eos(tiny_models):
    tok = tokenizer_for(tiny_models, "bart")
    obj = objective("bart")
    config = dataclasses.replace(obj.default_config(), sentence_permutation=0.0, text_infilling=0.0,
                                 document_rotation=True)
    ids = tok("one two three four five six seven eight")["input_ids"]
    rotations = set()
    for seed in range(30):
        p = obj.make_batch([ids], tok, np.random.default_rng(seed), config).previews[0]
        assert p.input_ids[0] == ids[0] and p.input_ids[-1] == ids[-1]
        body = ids[1:-1]
        k = next(k for k in range(len(body)) if body[k:] + body[:k] == p.input_ids[1:-1])
        rotations.add(k)
        assert (K.MOVED in p.kinds) == (k != 0)
    assert len(rotations) > len(ids) // 2, "the start is drawn uniformly"


def test_bart_sentence_permutation_moves_whole_sentences(tiny_models):
    tok = tokenizer_for(tiny_models, "bart")
    obj = objective("bart")
    config = dataclasses.replace(obj.default_config(), text_infilling=0.0)
    sentences = ["The bank raised rates.", " Savers were pleased.", " Borrowers were not.", " Nobody was surprised."]
    ids = tok("".join(sentences))["input_ids"]
    pieces = [tok(s, add_special_tokens=False)["input_ids"] for s in sentences]
    orders = set()
    for seed in range(20):
        p = obj.make_batch([ids], tok, np.random.default_rng(seed), config).previews[0]
        body = p.input_ids[1:-1]
        order, at = [], 0
        while at < len(body):
            i = next(i for i, piece in enumerate(pieces) if body[at: at + len(piece)] == piece and i not in order)
            order.append(i)
            at += len(pieces[i])
        assert sorted(order) == [0, 1, 2, 3]
        orders.add(tuple(order))
    assert len(orders) > 5


def test_mlm_whole_word_masking_hides_whole_words(tiny_models):
    tok = tokenizer_for(tiny_models, "bert")
    obj = objective("mlm")
    config = dataclasses.replace(obj.default_config(), whole_word_masking=True, mask_rate=0.3)
    enc = tok("Thank you for inviting me to your wonderful party last week.")
    words = enc.word_ids()
    for seed in range(20):
        p = obj.make_batch([enc["input_ids"]], tok, np.random.default_rng(seed), config).previews[0]
        chosen = {words[i] for i in p.scored_positions}
        assert {i for i, w in enumerate(words) if w in chosen} == set(p.scored_positions)


def test_mlm_max_predictions_caps_the_budget_as_bert_does(tiny_models):
    """BERT: num_to_predict = min(max_predictions_per_seq, max(1, round(n * rate))); the cap off (0) leaves the rate."""
    tok = tokenizer_for(tiny_models, "bert")
    obj = objective("mlm")
    ids = tok(" ".join(["the cat sat on the mat"] * 12))["input_ids"]
    eligible = len(ids) - 2  # [CLS] and [SEP] are never chosen
    uncapped = int(np.floor(0.15 * eligible + 0.5))
    assert uncapped > 5
    for cap, expected in ((5, 5), (0, uncapped), (1000, uncapped)):
        config = dataclasses.replace(obj.default_config(), max_predictions=cap)
        for seed in range(5):
            p = obj.make_batch([ids], tok, np.random.default_rng(seed), config).previews[0]
            assert len(p.scored_positions) == expected
    with pytest.raises(WorkbenchError):
        obj.check_config(dataclasses.replace(obj.default_config(), max_predictions=-1))


def test_spanbert_heads_and_extras(tiny_models):
    import transformers as tf

    model_config = tf.AutoConfig.from_pretrained(tiny_models["bert"])
    obj = objective("spanbert")
    heads = obj.build_heads(obj.default_config(), model_config)
    head = heads["sbo"]
    assert head.linear1.in_features == 3 * model_config.hidden_size
    assert head.bias.shape == (model_config.vocab_size,)
    assert objective("mlm").build_heads(objective("mlm").default_config(), model_config) == {}

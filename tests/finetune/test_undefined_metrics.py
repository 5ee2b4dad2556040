"""A loss or metric that is undefined or zero by construction (issue 42, kind 3): None with a note, never nan or a
made-up score; in-batch losses refuse a batch below 2 and drop a lone last batch. The defined rows are checked
against formulas written here (and scipy where it has the function); the reported MNRL case runs end to end."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from lm_workbench.cli.main import main
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence import batches
from lm_workbench.engine.sentence.losses import cosent_loss, mnrl_loss
from lm_workbench.engine.maths import metrics, undefined
from lm_workbench.engine.probing.sts import spearman
from lm_workbench.engine.retrieval.metrics import evaluate_rankings

REPLAY = settings(derandomize=True, deadline=None, max_examples=20)


def binary_mcc(gold, pred, positive="a"):
    tp = sum(g == positive and p == positive for g, p in zip(gold, pred))
    tn = sum(g != positive and p != positive for g, p in zip(gold, pred))
    fp = sum(g != positive and p == positive for g, p in zip(gold, pred))
    fn = sum(g == positive and p != positive for g, p in zip(gold, pred))
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


@pytest.mark.parametrize("call,expected,why", [  # why: the note's start (undefined), or the metric (defined)
    # undefined: None and the reason
    (lambda n: metrics.accuracy([], [], n), None, "accuracy not defined: no examples to score"),
    (lambda n: metrics.macro_f1([], [], n), None, "macro_f1 not defined: no examples to score"),
    (lambda n: metrics.matthews_corrcoef(["a", "a", "a"], ["a", "b", "a"], n), None,
     "mcc not defined: every gold label is 'a'"),
    (lambda n: metrics.matthews_corrcoef(["a", "b", "a"], ["b", "b", "b"], n), None,
     "mcc not defined: every prediction is 'b'"),
    (lambda n: metrics.entity_scores([["O", "O"]], [["O", "O"]], n)["f1"], None, "f1 not defined: neither"),
    (lambda n: metrics.entity_scores([["B-PER", "O"]], [["O", "O"]], n)["precision"], None,
     "precision not defined: the model predicted no entity"),
    (lambda n: metrics.entity_scores([["O", "O"]], [["B-PER", "O"]], n)["recall"], None,
     "recall not defined: the gold tags hold no entity"),
    (lambda n: metrics.squad_metrics([], [], n)["exact_match"], None, "exact_match not defined"),
    (lambda n: metrics.rouge_scores([], [], n)["rougeL"], None, "rougeL not defined"),
    (lambda n: spearman([0.1, 0.9], [1.0, 2.0], n), None, "spearman not defined: 2 pair(s)"),  # ±1 by construction
    (lambda n: spearman([0.1, 0.5, 0.9], [3.0, 3.0, 3.0], n), None, "spearman not defined: every gold score is 3"),
    (lambda n: spearman([0.5, 0.5, 0.5], [1.0, 2.0, 3.0], n), None, "spearman not defined: every pair has the same"),
    # defined: the value, worked out here, and no note
    (lambda n: metrics.matthews_corrcoef(list("aabba"), list("abbaa"), n), binary_mcc(list("aabba"), list("abbaa")),
     "mcc"),
    (lambda n: metrics.entity_scores([["B-PER", "O"]], [["O", "O"]], n)["f1"], 0.0, "f1"),  # 2·0 / (1 + 0)
    (lambda n: metrics.entity_scores([["O", "O"]], [["B-PER", "O"]], n)["precision"], 0.0, "precision"),
    (lambda n: spearman([0.1, 0.9, 0.5], [1.0, 3.0, 2.0], n), 1.0, "spearman"),
])
def test_undefined_metrics_are_none_with_their_reason(call, expected, why):
    notes: list[str] = []
    found = call(notes)
    if expected is None:
        assert found is None and any(line.startswith(why) for line in notes), notes
        metric = why.split(" not defined")[0]
        assert undefined.shown(found, metric, notes).startswith("not defined (") and "nan" not in str(notes)
    else:  # ``why`` names the metric: defined, so no note about it (another of the same call may have one)
        assert found == pytest.approx(expected, abs=1e-12) and why not in undefined.reasons(notes)


def test_spearman_where_defined_equals_scipy():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(3)
    predicted, gold = rng.normal(size=12), np.round(rng.uniform(0, 5, size=12))
    assert spearman(predicted, gold) == pytest.approx(spearmanr(predicted, gold).statistic, abs=1e-12)


def test_a_query_without_a_relevant_passage_is_left_out_and_none_is_defined_without_any():
    table = evaluate_rankings({"q": ["a", "b"], "z": ["a"]}, {"q": {"b": 1}, "z": {"a": 0}})
    assert set(table.per_query) == {"q"} and table.mean["ndcg@10"] == pytest.approx(1 / math.log2(3))
    assert "1 query(ies) with no relevant passage judged, left out" in table.notes[0]
    empty = evaluate_rankings({"z": ["a"]}, {"z": {"a": 0}})
    assert all(v is None for v in empty.mean.values()) and "ndcg@10" in undefined.reasons(empty.notes)


# ---------------------------------------------------------------- in-batch negatives

def test_a_batch_of_one_scores_zero_by_construction_so_it_is_refused():
    torch.manual_seed(0)
    anchor, positive, scores = torch.randn(1, 8), torch.randn(1, 8), torch.tensor([0.7])
    assert float(mnrl_loss(anchor, positive)) == 0.0  # log-softmax over one candidate
    assert float(cosent_loss(anchor, positive, scores)) == 0.0  # log(1 + an empty sum)
    for loss in ("mnrl", "cosent"):
        with pytest.raises(WorkbenchError, match="use --batch-size 2 or more") as error:
            batches.check_in_batch(loss, 1, 10)
        assert "\n" not in str(error.value)
        with pytest.raises(WorkbenchError, match="needs at least two training examples"):
            batches.check_in_batch(loss, 4, 1)
    batches.check_in_batch("triplet", 1, 1)  # a triplet scores alone


@REPLAY
@given(n=st.integers(2, 40), batch_size=st.integers(2, 50), seed=st.integers(0, 99))
def test_in_batch_sampler_never_repeats_a_pair_and_drops_only_a_lone_last_one(n, batch_size, seed):
    b = min(batch_size, n)
    per_epoch = batches.batches_per_epoch(n, batch_size)
    assert per_epoch == n // b + (1 if n % b >= 2 else 0)  # the right count, from n and b alone
    sampler = batches.InBatchSampler(n, batch_size, seed)
    for epoch in range(3):
        drawn = [sampler.next_indices() for _ in range(per_epoch)]
        flat = [i for batch in drawn for i in batch]
        assert all(len(batch) >= 2 and len(set(batch)) == len(batch) for batch in drawn)
        assert len(set(flat)) == len(flat) == n - (1 if n % b == 1 else 0)  # one epoch: each pair once at most
        expected = np.random.default_rng([seed, epoch]).permutation(n)[:len(flat)].tolist()
        assert flat == expected
    assert sampler.dropped == (2 if n % b == 1 else 0)  # the third epoch's lone pair is dropped at the next call
    state = sampler.state_dict()
    again = batches.InBatchSampler(n, batch_size, seed)
    again.load_state_dict(state)
    assert again.next_indices() == sampler.next_indices()


@pytest.mark.parametrize("count,size,loss,chunks,says", [
    (5, 2, "mnrl", [(0, 2), (2, 4)], "1 validation example left out"),
    (1, 2, "mnrl", [], "validation_loss not defined: the 1 held-out example(s) make a batch of one"),
    (4, 2, "mnrl", [(0, 2), (2, 4)], None),
    (5, 2, "triplet", [(0, 2), (2, 4), (4, 5)], None),  # a triplet's loss is defined on one
])
def test_validation_batches_of_one_are_dropped_for_in_batch_losses(count, size, loss, chunks, says):
    found, notes = batches.validation_chunks(count, size, loss)
    assert found == chunks
    assert (notes[0].startswith(says) if says else not notes)


PAIRS = ("anchor\tpositive\nhow is tea made\tTea is made from leaves.\n"
         "why does it rain\tRain falls from heavy clouds.\nhow do bikes move\tPedals turn the wheels of a bike.\n"
         "what is bread\tBread is baked from flour.\n")


def test_the_reported_mnrl_run_is_refused_and_batch_two_drops_and_counts(tmp_path, tiny_models, capsys, monkeypatch):
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(tmp_path / "home"))
    (tmp_path / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    argv = ["finetune", str(tiny_models["bert"]), "--task", "sentence-embedding",
            "--train", str(tmp_path / "pairs.tsv"), "--method", "bitfit", "--epochs", "1", "--max-length", "16",
            "--train-setting", "threads=1"]
    assert main([*argv, "--batch-size", "1", "--out", str(tmp_path / "mnrl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the mnrl loss uses in-batch negatives" in err[0] and "--batch-size 2" in err[0]
    assert not (tmp_path / "mnrl").exists()

    assert main([*argv, "--batch-size", "2", "--out", str(tmp_path / "two"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # 4 pairs: 1 held out, 3 trained in batches of 2: each epoch one batch, the lone third pair dropped
    assert printed["train_examples"] == 3 and printed["steps"] == 1
    notes = printed["notes"]
    assert any("3 training pairs in batches of 2" in line and "dropped, 1 time(s)" for line in notes), notes
    # the one held-out pair cannot be scored by in-batch negatives: null and why, not the 0.0 it used to print
    assert printed["validation_loss"] is None
    assert "batch of one" in undefined.reasons(notes)["validation_loss"]
    assert all(row[1]["validation_loss"] is None for row in printed["history"])

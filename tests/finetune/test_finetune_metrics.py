"""The fine-tuning metrics against reference libraries (sklearn, seqeval, rouge_score) on fixed predictions,
and SQuAD EM/F1 against a hand-worked example."""

import random

import pytest

from lm_workbench.engine.maths import metrics


def _labels(seed, n, classes, agreement):
    rng = random.Random(seed)
    true = [rng.choice(classes) for _ in range(n)]
    pred = [t if rng.random() < agreement else rng.choice(classes) for t in true]
    return true, pred


CASES = [_labels(0, 50, ["pos", "neg"], 0.7), _labels(1, 80, ["a", "b", "c", "d"], 0.5),
         (["x", "x", "y", "y", "z"], ["x", "y", "y", "y", "w"]),  # a predicted class never true
         (["a", "b", "a", "b"], ["a", "a", "a", "a"])]            # constant predictions: MCC undefined


@pytest.mark.parametrize("true,pred", CASES)
def test_classification_metrics_equal_sklearn(true, pred):
    sk = pytest.importorskip("sklearn.metrics")
    ours = metrics.classification_metrics(true, pred)
    assert ours["accuracy"] == pytest.approx(sk.accuracy_score(true, pred), abs=1e-12)
    assert ours["macro_f1"] == pytest.approx(sk.f1_score(true, pred, average="macro", zero_division=0), abs=1e-12)
    if len(set(pred)) > 1:
        assert ours["mcc"] == pytest.approx(sk.matthews_corrcoef(true, pred), abs=1e-12)
    else:  # sklearn says 0 for a correlation over constant predictions; here it is not defined (None)
        assert ours["mcc"] is None


def test_mcc_is_signed_and_bounded():
    assert metrics.matthews_corrcoef([0, 1, 0, 1], [1, 0, 1, 0]) == pytest.approx(-1.0)
    assert metrics.matthews_corrcoef([0, 1, 2], [0, 1, 2]) == pytest.approx(1.0)


TRUE_TAGS = [["B-PER", "I-PER", "O", "B-LOC", "O"],
             ["O", "B-ORG", "I-ORG", "I-ORG", "O", "B-PER"],
             ["B-LOC", "I-LOC", "O", "O"],
             ["O", "O", "O"]]
PRED_TAGS = [["B-PER", "I-PER", "O", "B-ORG", "O"],        # right PER, wrong type
             ["O", "I-ORG", "I-ORG", "I-ORG", "O", "B-PER"],  # I- after O opens an entity: both right
             ["B-LOC", "B-LOC", "O", "I-PER"],              # split entity, stray I-PER entity
             ["B-MISC", "I-PER", "O"]]                      # I- of another type opens a new entity


def test_bio_entities_follow_conlleval():
    assert metrics.bio_entities(["O", "I-ORG", "I-ORG", "I-PER", "B-PER", "I-PER"]) == [
        ("ORG", 1, 2), ("PER", 3, 3), ("PER", 4, 5)]


def test_entity_scores_equal_seqeval():
    seqeval = pytest.importorskip("seqeval.metrics")
    ours = metrics.entity_scores(TRUE_TAGS, PRED_TAGS)
    assert ours["precision"] == pytest.approx(seqeval.precision_score(TRUE_TAGS, PRED_TAGS), abs=1e-12)
    assert ours["recall"] == pytest.approx(seqeval.recall_score(TRUE_TAGS, PRED_TAGS), abs=1e-12)
    assert ours["f1"] == pytest.approx(seqeval.f1_score(TRUE_TAGS, PRED_TAGS), abs=1e-12)
    # by hand: 5 gold entities, 9 predicted (2 + 2 + 3 + 2), 3 right (PER; ORG and PER)
    assert ours["precision"] == pytest.approx(3 / 9) and ours["recall"] == pytest.approx(3 / 5)


def test_squad_hand_worked():
    # "The Eiffel Tower!" normalises to "eiffel tower"; exact against the first gold
    assert metrics.exact_match("The Eiffel Tower!", ["eiffel tower", "Paris"]) == 1.0
    # prediction "in the city of Paris" -> [in, city, of, paris]; gold "Paris, France" -> [paris, france]
    # common 1: precision 1/4, recall 1/2, F1 = 2 * (1/8) / (3/4) = 1/3; EM 0
    assert metrics.exact_match("in the city of Paris", ["Paris, France"]) == 0.0
    assert metrics.token_f1("in the city of Paris", ["Paris, France"]) == pytest.approx(1 / 3)
    # max over golds: the second gold "Paris" -> precision 1/4, recall 1 -> F1 0.4
    assert metrics.token_f1("in the city of Paris", ["Paris, France", "Paris"]) == pytest.approx(0.4)
    result = metrics.squad_metrics(["The Eiffel Tower!", "in the city of Paris"],
                                   [["eiffel tower"], ["Paris, France", "Paris"]])
    assert result == pytest.approx({"exact_match": 0.5, "f1": (1.0 + 0.4) / 2})
    assert metrics.normalize_answer("  An  apple, THE pear.") == "apple pear"


ROUGE_PAIRS = [("The cat sat on the mat.", "the cat was sitting on the mat"),
               ("A quick brown fox jumps over the lazy dog", "The quick brown fox jumped over a lazy dog!"),
               ("nothing in common", "completely different words here"),
               ("Dogs run, 2 dogs ran; dogs running.", "dogs run and dogs ran 2 times"),
               ("short", "short")]


def test_rouge_equals_rouge_score():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    expected = {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    for prediction, target in ROUGE_PAIRS:
        scores = scorer.score(target, prediction)
        assert metrics.rouge_n(prediction, target, 1) == pytest.approx(scores["rouge1"].fmeasure, abs=1e-12)
        assert metrics.rouge_n(prediction, target, 2) == pytest.approx(scores["rouge2"].fmeasure, abs=1e-12)
        assert metrics.rouge_l(prediction, target) == pytest.approx(scores["rougeL"].fmeasure, abs=1e-12)
        for key in expected:
            expected[key] += scores[key].fmeasure / len(ROUGE_PAIRS)
    predictions, targets = zip(*ROUGE_PAIRS)
    assert metrics.rouge_scores(predictions, targets) == pytest.approx(expected)


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError):
        metrics.accuracy([1, 2], [1])

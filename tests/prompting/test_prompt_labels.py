"""The label rule in prompt evaluation (issue 42, kind 2): a verbalizer matches the data's labels by value, and a
label whose every example was drawn as a demonstration (the few-shot pool) is refused or, with
``--keep-unseen-labels``, said. Tables worked out by hand; one evaluation on a tiny BERT."""

from __future__ import annotations

import pytest

from lm_workbench.engine.data.tasks import read_classification
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.prompting.evaluate import (
    EvaluationSettings, PromptChoice, demonstration_labels, evaluate_prompts,
)
from lm_workbench.engine.prompting.fewshot import Demonstration
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer
from lm_workbench.engine.progress import run_to_completion


def pool(*labels):
    return [Demonstration(f"text {i}", label) for i, label in enumerate(labels)]


@pytest.mark.parametrize("labels,fixed,keep,refused,said", [
    (("a", "b", "a", "b"), [0, 1], False, None, []),
    # 'c' has one example and it was drawn: nothing of 'c' is evaluated
    (("a", "b", "c", "a", "b"), [2, 0], False, r"'c' \(1\) appear only among the demonstrations", None),
    (("a", "b", "c", "a", "b"), [2, 0], True, None, ["'c' (1) appear only among the demonstrations",
                                                    "'b' have no demonstration among the 2 shown"]),
    (("a", "b", "a", "b"), [0], False, None, ["'b' have no demonstration among the 1 shown"]),
])
def test_demonstration_labels_table(labels, fixed, keep, refused, said):
    if refused:
        with pytest.raises(WorkbenchError, match=refused) as error:
            demonstration_labels(pool(*labels), fixed, keep)
        assert "\n" not in str(error.value) and "--keep-unseen-labels" in str(error.value)
        return
    notes = demonstration_labels(pool(*labels), fixed, keep)
    assert len(notes) == len(said) and all(s in n for s, n in zip(said, notes))


def test_a_verbalizer_matches_labels_by_value_and_refuses_two_spellings_of_one():
    verbalizer = Verbalizer.parse("1.0=good;0=bad")
    verbalizer.require_labels(["1", "0.0"])  # covered: the same numbers
    respelled, notes = verbalizer.respelled(["0.0", "1"])
    assert respelled.labels == ["1", "0.0"] and respelled.answers_for("1") == ("good",)
    assert notes == ["verbalizer label '1.0' is the data's label '1' (the same number or text)",
                     "verbalizer label '0' is the data's label '0.0' (the same number or text)"]
    with pytest.raises(WorkbenchError, match="label 'Pos' in the data has no answer words"):
        Verbalizer.parse("pos=good;neg=bad").require_labels(["Pos"])  # case is a difference
    with pytest.raises(WorkbenchError, match="'1' and '1.0' are one class"):
        Verbalizer.parse("1=good;1.0=fine;0=bad")


def test_a_file_written_with_floats_evaluates_with_an_integer_verbalizer(tmp_path, tiny_models):
    rows = [("a good film", "1.0"), ("a bad film", "0.0"), ("good and warm", "1"), ("dull and bad", "0"),
            ("warm story", "1.0"), ("poor story", " 0"), ("lonely", "2")]
    path = tmp_path / "floats.tsv"
    path.write_text("sentence\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in rows), encoding="utf-8")
    data = read_classification(path)
    # the class takes the spelling seen first
    assert data.labels == ["0.0", "1.0", "2"] and "are one class, '1.0': the same number" in " ".join(data.report.notes)
    loaded = load_model(str(tiny_models["bert"]))
    prompt = PromptChoice(Template.parse("[x] it [z] ."), Verbalizer.parse("1=is;0=was;2=a"))
    # balanced k = 3 draws the only '2': nothing of it would be evaluated
    with pytest.raises(WorkbenchError, match=r"'2' \(1\) appear only among the demonstrations"):
        run_to_completion(evaluate_prompts(loaded, data, [prompt], EvaluationSettings(k_shot=3, selection="balanced")))
    result = run_to_completion(evaluate_prompts(loaded, data, [prompt], EvaluationSettings(
        k_shot=3, selection="balanced", keep_unseen_labels=True)))
    evaluation = result.prompts[0]
    assert sorted(data.examples[i].label for i in result.demonstrations) == ["0.0", "1.0", "2"]
    assert sorted(evaluation.gold) == ["0.0", "0.0", "1.0", "1.0"]  # every spelling of 1 and 0 in one class each
    assert evaluation.labels == ["1.0", "0.0", "2"]  # the verbalizer's 1 and 0, respelled as the data writes them
    assert any("verbalizer label '1' is the data's label '1.0'" in n for n in result.notes)
    assert sum(map(sum, evaluation.raw.confusion)) == 4
    assert any("'2' (1) appear only among the demonstrations" in n for n in result.notes)
    assert result.to_dict()["notes"] == result.notes

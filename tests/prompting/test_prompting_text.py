"""Templates, verbalizers, few-shot selection, calibration arithmetic and prompt-set files (no model runs)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.calibration import calibrate, content_free_inputs
from lm_workbench.engine.prompting.fewshot import Demonstration, choose_demonstrations, cosine_to, full_prompt
from lm_workbench.engine.prompting.template import Template, problems
from lm_workbench.engine.prompting.verbalizer import Verbalizer, answer_token_ids


def test_template_problems_carry_their_spans():
    text = "[x] it was [y] and [z] really"
    found = problems(text, "prefix")
    assert [(p.start, p.end) for p in found] == [(11, 14), (19, len(text))]
    assert "unknown slot [y]" in found[0].message and "must end with [z]" in found[1].message
    assert problems(text.replace("[y]", "so"), "cloze") == []
    assert any("no answer slot" in p.message for p in problems("[x] was great", "cloze"))
    assert any("no input slot" in p.message for p in problems("it was [z]", "cloze"))
    assert any("twice" in p.message for p in problems("[x] [x] [z]", "cloze"))
    with pytest.raises(WorkbenchError, match="no answer slot"):
        Template.parse("[x] was great")
    with pytest.raises(WorkbenchError, match="cloze or prefix"):
        Template.parse("[x] [z]", "suffix")


def test_template_fills_inputs_once_and_splits_at_the_answer():
    t = Template.parse("[x] / [x2] => [z].")
    assert t.is_pair
    assert t.split("a [x2] b", "c") == ("a [x2] b / c => ", ".")  # an input's own "[x2]" is not filled
    assert t.fill("a", "b", answer="yes") == "a / b => yes."
    with pytest.raises(WorkbenchError, match="needs pairs"):
        t.split("a")


def test_verbalizer_parse_and_errors():
    v = Verbalizer.parse(" pos = great, good ; neg=terrible,bad;")
    assert v.labels == ["pos", "neg"] and v.answers_for("pos") == ("great", "good")
    assert Verbalizer.parse(v.to_text()) == v
    for bad, message in [("", "empty"), ("pos", "no '='"), ("pos=great", "at least two"),
                         ("pos=;neg=bad", "no answer words"), ("pos=a;pos=b", "twice"), ("=a;neg=b", "no label")]:
        with pytest.raises(WorkbenchError, match=message):
            Verbalizer.parse(bad)
    with pytest.raises(WorkbenchError, match="label 'neutral' in the data has no answer words"):
        v.require_labels(["pos", "neutral"])


def test_lm_answer_tokens_are_those_after_the_prompt_with_the_space_merged(tiny_models):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_models["gpt2"])
    before = "The movie is "
    whole = tok("The movie is terrible", add_special_tokens=False)["input_ids"]
    head = tok("The movie is", add_special_tokens=False)["input_ids"]
    ids = answer_token_ids(tok, before, "terrible")
    assert ids == whole[len(head):]
    assert tok.convert_ids_to_tokens(ids)[0].startswith("Ġ")  # BPE merged the space into the answer
    shown = Verbalizer.parse("pos=great;neg=terrible").tokenizations(tok, "prefix", before)
    assert [a.ids for a in shown] == [tuple(answer_token_ids(tok, before, "great")), tuple(ids)]


POOL = [Demonstration(f"text {i}", label) for i, label in enumerate(["a"] * 6 + ["b"] * 3 + ["c"] * 3)]


def test_few_shot_choice_is_deterministic_for_a_seed_and_respects_k_and_balance():
    first = choose_demonstrations(POOL, 5, selection="random", seed=7)
    assert first == choose_demonstrations(POOL, 5, selection="random", seed=7)
    assert len(first) == 5 == len(set(first))
    assert any(choose_demonstrations(POOL, 5, selection="random", seed=s) != first for s in range(1, 5))
    balanced = choose_demonstrations(POOL, 7, selection="balanced", seed=3, labels=["a", "b", "c"])
    counts = Counter(POOL[i].label for i in balanced)
    assert len(balanced) == 7 and counts == {"a": 3, "b": 2, "c": 2}
    assert choose_demonstrations(POOL, 3, selection="balanced", seed=1, exclude=[9, 10, 11]) != []
    assert not {9, 10, 11} & set(choose_demonstrations(POOL, 9, selection="random", seed=1, exclude=[9, 10, 11]))
    by_label = choose_demonstrations(POOL, 6, selection="balanced", seed=2, labels=["c", "b", "a"],
                                     order="by-label")
    assert [POOL[i].label for i in by_label] == ["c", "c", "b", "b", "a", "a"]
    with pytest.raises(WorkbenchError, match="only 12 examples"):
        choose_demonstrations(POOL, 13)


def test_similar_demonstrations_are_the_nearest_by_cosine_most_similar_last():
    vectors = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.7, 0.7], [-1.0, 0.0]])
    pool = [Demonstration(str(i), "x") for i in range(5)]
    sims = cosine_to(vectors[0], vectors)
    assert sims[0] == pytest.approx(1.0) and sims[4] == pytest.approx(-1.0)
    chosen = choose_demonstrations(pool, 2, selection="similar", exclude=[0], similarities=sims)
    assert chosen == [3, 1]  # the query itself left out; the most similar (1) right before the query


def test_full_prompt_puts_demonstrations_with_their_first_answer_before_the_query():
    t, v = Template.parse("[x] It was [z]."), Verbalizer.parse("pos=great,good;neg=bad")
    demos = [Demonstration("Loved it.", "pos"), Demonstration("Hated it.", "neg")]
    assert full_prompt(t, v, demos, "Fine film.") == (
        "Loved it. It was great.\n\nHated it. It was bad.\n\nFine film. It was [z].")


def test_calibration_on_a_hand_worked_example():
    # p = (0.6, 0.4), p_cf = (0.8, 0.2): p / p_cf = (0.75, 2.0), sum 2.75 -> (0.272727..., 0.727272...)
    assert calibrate([0.6, 0.4], [0.8, 0.2]) == pytest.approx([0.75 / 2.75, 2.0 / 2.75])
    # three labels: p = (0.5, 0.3, 0.2), p_cf = (0.5, 0.25, 0.25): (1, 1.2, 0.8) / 3 -> (1/3, 0.4, 0.8/3)
    assert calibrate([[0.5, 0.3, 0.2]], [0.5, 0.25, 0.25])[0] == pytest.approx([1 / 3, 0.4, 0.8 / 3])
    with pytest.raises(WorkbenchError, match="is 0"):
        calibrate([0.5, 0.5], [1.0, 0.0])


def test_content_free_inputs_use_the_models_mask_token():
    class Masked:
        mask_token = "<mask>"

    class Unmasked:
        mask_token = None

    assert content_free_inputs(Masked()) == ["N/A", "", "<mask>"]
    assert content_free_inputs(Unmasked()) == ["N/A", ""]


def test_prompt_set_files_round_trip_and_the_built_in_sets_are_valid_plugins(tmp_path):
    from importlib.metadata import entry_points

    from lm_workbench.engine.plugin_api import PromptSet
    from lm_workbench.engine.prompting.prompt_set import prompt_set_problem
    from lm_workbench.extensions.kinds import kind_named
    from lm_workbench.prompting.files import from_plugin, load_prompt_set, save_prompt_set
    from lm_workbench.prompting.sets import example_data_path, prompt_set_registry

    found = {e.name: e.load() for e in entry_points(group="lm_workbench.prompt_sets")}
    assert {"sentiment", "topic"} <= set(found)
    kind = kind_named("prompt-set")
    registry = prompt_set_registry(root=tmp_path / "no-folder-plugins")
    for name in ("sentiment", "topic"):
        cls = found[name]
        assert issubclass(cls, PromptSet) and kind.problem(cls, name) is None
        assert registry.record(name).status == "ok" and isinstance(registry.contribution(name), cls)
        assert example_data_path(name, registry) == cls().example_data()
        content = from_plugin(cls)
        assert len(content.examples) >= 30
        path = save_prompt_set(content, tmp_path / f"{name}.json")
        again = load_prompt_set(path)
        assert again.templates == content.templates and again.examples == content.examples
        assert [Verbalizer.parse(v.spec) for v in again.verbalizers] == [v.verbalizer() for v in content.verbalizers]

    class Broken(PromptSet):
        name = "broken"
        templates = ()

    assert prompt_set_problem(Broken) == "it has no templates"
    (tmp_path / "bad.json").write_text('{"format": "lm-workbench-prompt-set", "version": 1, "name": "x", '
                                       '"templates": [{"text": "[x] is [z] ok", "mode": "prefix"}], '
                                       '"verbalizers": []}', encoding="utf-8")
    with pytest.raises(WorkbenchError, match="template 1 .* must end with \\[z\\]"):
        load_prompt_set(tmp_path / "bad.json")
    with pytest.raises(WorkbenchError, match="not a prompt-set file"):
        (tmp_path / "other.json").write_text("{}", encoding="utf-8")
        load_prompt_set(tmp_path / "other.json")


def test_label_probabilities_are_a_softmax_of_log_sum_exp_scores():
    from lm_workbench.engine.prompting.scoring import logsumexp, softmax

    # hand-worked: answers with log-probs -1 and -2 for one label -> log(e^-1 + e^-2) = -1 + log(1 + e^-1)
    assert logsumexp([-1.0, -2.0]) == pytest.approx(-1 + math.log(1 + math.exp(-1)))
    assert softmax([math.log(3), math.log(1)]) == pytest.approx([0.75, 0.25])

"""Lecture presets without a window: the schema's messages, availability, the runner, ``presets list``."""

from __future__ import annotations

import copy
import json

import pytest

from lm_workbench.cli.main import main
from lm_workbench.lectures.availability import check_preset, resolve_model, resolve_settings
from lm_workbench.lectures.library import builtin_presets, data_path, load_preset_file
from lm_workbench.lectures.runner import PresetRunner
from lm_workbench.lectures.schema import FORMAT, PresetError, parse_preset

GOOD = {"format": FORMAT, "name": "demo", "title": "A demo", "model": "default",
        "steps": [{"view": "masking_lab", "caption": "one", "inputs": {"text": "Hello there."},
                   "settings": {"seed": 1}},
                  {"view": "attention", "caption": "two", "settings": {"layer": 1}}]}
VIEWS = {"masking_lab": frozenset({"seed", "objective"}), "attention": frozenset({"layer"})}


def broken(path: str, value, *, delete: bool = False) -> dict:
    data = copy.deepcopy(GOOD)
    keys = path.split(".")
    target = data
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = int(keys[-1]) if keys[-1].isdigit() else keys[-1]
    if delete:
        del target[last]
    else:
        target[last] = value
    return data


@pytest.mark.parametrize("path, value, delete, message", [
    ("format", "lm-workbench-preset/9", False, "format: 'lm-workbench-preset/9' is a newer preset format"),
    ("format", "something", False, "format: must be 'lm-workbench-preset/2' (or the older 'lm-workbench-preset/1')"),
    ("name", "Has Spaces", False, "name: must be lower-case letters"),
    ("title", None, True, "title: is missing"),
    ("steps", [], False, "steps: must be a non-empty list"),
    ("steps.1.caption", "two\nlines", False, "steps[1].caption: must be one line"),
    ("steps.0.inputs", {"txt": "typo"}, False, "steps[0].inputs: unknown input(s) txt"),
    ("steps.0.settings", [1], False, "steps[0].settings: must be an object"),
    ("steps.0.inputs", {"corpus": {"lines": ["a", "b"], "labels": ["x"]}}, False,
     "steps[0].inputs.corpus.labels: must be a list of 2 strings"),
    ("steps.1.extra", 1, False, "steps[1]: unknown key(s) extra"),
    # a Features step's SAE recipe is checked when the file is read, not when the step plays
    ("steps.1", {"view": "features", "caption": "c", "settings": {"sae": {"site": "blocks.0.hook_resid_post",
     "sparsty": 1, "corpus": "training-corpus"}}}, False, "steps[1].settings.sae: unknown key(s) sparsty"),
    ("steps.1", {"view": "features", "caption": "c", "settings": {"sae": {"site": "blocks.0.hook_resid_post"}}},
     False, "steps[1].settings.sae: a training recipe needs a corpus"),
    ("steps.1", {"view": "features", "caption": "c", "settings": {"sae": 3}}, False,
     "steps[1].settings.sae: a folder or a training recipe (object), not int"),
])
def test_schema_errors_name_the_file_and_the_field(path, value, delete, message):
    with pytest.raises(PresetError) as err:
        parse_preset(broken(path, value, delete=delete), "teacher.json")
    assert str(err.value).startswith("teacher.json: ") and message in str(err.value)


def test_a_file_that_is_not_json_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": ', encoding="utf-8")
    with pytest.raises(PresetError, match=r"bad\.json: not valid JSON"):
        load_preset_file(bad)


def test_round_trip_and_availability_per_step():
    preset = parse_preset(GOOD, "x.json")
    assert parse_preset(json.loads(json.dumps(preset.to_dict())), "x.json") == preset
    status = check_preset(preset, VIEWS, {})
    assert status.available and [s.available for s in status.steps] == [True, True]
    # a setting the view cannot apply makes that step unavailable, with the key named
    status = check_preset(parse_preset(broken("steps.1.settings", {"step_by_step": {}}), "x"), VIEWS, {})
    assert status.available and not status.steps[1].available and "step_by_step" in status.steps[1].reason
    # a missing view makes the whole preset unavailable
    status = check_preset(parse_preset(broken("steps.1.view", "finetune"), "x"), VIEWS, {})
    assert not status.available and "'finetune' view" in status.reason
    # a course model that is not trained: the reason says how to build it
    status = check_preset(parse_preset(broken("model", "course:t5"), "x"), VIEWS, {})
    assert not status.available and "course-models --families t5" in status.reason
    assert check_preset(parse_preset(broken("model", "course:t5"), "x"), VIEWS, {"t5": "/m/t5"}).available


def test_a_model_may_be_a_list_of_candidates(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    candidates = ["some-org/big-model", str(tmp_path / "no-such-folder"), "course:bert"]
    preset = parse_preset(broken("model", candidates), "x.json")
    assert preset.model == tuple(candidates)
    assert parse_preset(json.loads(json.dumps(preset.to_dict())), "x.json") == preset  # a list again in JSON
    status = check_preset(preset, VIEWS, {})  # none present: the reason names the course model and the others
    assert not status.available and "course-models --families bert" in status.reason and \
        "some-org/big-model" in status.reason
    with pytest.raises(PresetError, match="course bert"):
        resolve_model(preset.model, "minilm", {})
    assert resolve_model(preset.model, "minilm", {"bert": "/c/bert"}) == "/c/bert"  # the last one, installed
    (tmp_path / "no-such-folder").mkdir()
    assert resolve_model(preset.model, "minilm", {"bert": "/c/bert"}) == str(tmp_path / "no-such-folder")
    (tmp_path / "hub" / "models--some-org--big-model").mkdir(parents=True)  # a cached hub model comes first
    assert check_preset(preset, VIEWS, {}).available
    assert resolve_model(preset.model, "minilm", {}) == "some-org/big-model"
    step = parse_preset(broken("steps.1.model", ["course:gpt2"]), "x.json")
    assert not check_preset(step, VIEWS, {}).steps[1].available
    for bad in ([], [""], ["ok", 3], {"a": 1}):
        with pytest.raises(PresetError, match="model"):
            parse_preset(broken("model", bad), "x.json")


def test_references_resolve_to_paths():
    preset = parse_preset(GOOD, "x.json")
    assert resolve_model("default", "minilm", {}) == "minilm"
    assert resolve_model("course:bart", "minilm", {"bart": "/c/bart"}) == "/c/bart"
    with pytest.raises(PresetError, match="course bart"):
        resolve_model("course:bart", "minilm", {})
    out = resolve_settings({"task": "preset-data:word_sense.tsv", "tok": ["course:t5"], "n": 3}, preset,
                           {"t5": "/c/t5"})
    assert out == {"task": str(data_path("word_sense.tsv")), "tok": ["/c/t5"], "n": 3}
    assert data_path("word_sense.tsv").read_text(encoding="utf-8").startswith("text\tlabel\n")


def test_runner_steps_and_captions():
    preset = parse_preset(broken("steps.1.settings", {"step_by_step": {}}), "x")
    runner, seen = PresetRunner(), []
    runner.events.step_changed.connect(seen.append)
    runner.start(preset, check_preset(preset, VIEWS, {}))
    assert runner.caption() == "Step 1/2: one" and seen == [0]
    assert runner.next() and not runner.next() and seen == [0, 1]
    assert runner.caption().startswith("Step 2/2: two (not available here: ")
    assert runner.previous() and runner.index == 0 and not runner.previous()
    runner.stop()
    assert not runner.active and runner.caption() == ""
    with pytest.raises(ValueError, match="not available"):
        runner.start(preset, check_preset(preset, {}, {}))


def test_builtin_presets_are_valid_and_cover_the_lectures():
    names = [p.name for p in builtin_presets()]
    assert names == ["static-vs-contextual", "bert-masking", "bart-t5-noising", "attention-pair", "cloze-vs-prefix",
                     "lora-vs-full", "scalar-mix-pos-vs-sense", "attention-not-explanation", "where-is-a-fact",
                     "which-heads-move-the-answer", "why-not-the-other-word", "why-sbert", "instruction-tuning",
                     "features-and-steering"]


def test_presets_list_json(capsys, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    assert main(["presets", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {p.name for p in builtin_presets()}
    for row in rows.values():
        assert {"name", "title", "steps", "available"} <= set(row) and row["steps"] == len(row["step_captions"])
        assert row["available"] or row["reason"]
    assert rows["bert-masking"]["available"] is True
    assert rows["lora-vs-full"]["available"] is True
    cloze = rows["cloze-vs-prefix"]  # the test home has no course models and the hub cache is empty
    assert cloze["available"] is False and "course-models --families bert" in cloze["reason"]
    assert cloze["model"] == ["bert-base-uncased", "distilbert-base-uncased", "roberta-base", "course:bert"]
    attention = rows["attention-pair"]
    assert attention["available"] and attention["steps_available"][:2] == [True, True]


def test_presets_check_refuses_a_bad_file_in_one_line(tmp_path, capsys):
    bad = tmp_path / "lecture.json"
    bad.write_text(json.dumps(broken("steps.0.caption", "")), encoding="utf-8")
    assert main(["presets", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lecture.json: steps[0].caption: must be a non-empty string" in err
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    assert main(["presets", "check", str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["available"] is True


def test_a_stepper_at_its_end_passes_the_key_to_the_one_below():
    from lm_workbench.clicker import Clicker

    class Panel:
        def __init__(self, count):
            self.index, self.count = 0, count

        def next(self):
            moved = self.index < self.count - 1
            self.index += moved
            return moved

        def previous(self):
            moved = self.index > 0
            self.index -= moved
            return moved

    lecture, panel, steps = Panel(3), Panel(2), Clicker()
    steps.push(lecture)
    steps.push(panel)
    assert steps.next() and (panel.index, lecture.index) == (1, 0)
    assert steps.next() and (panel.index, lecture.index) == (1, 1)  # the panel is done: the lecture moves on
    assert steps.previous() and (panel.index, lecture.index) == (0, 1)
    assert steps.previous() and (panel.index, lecture.index) == (0, 0)
    assert not steps.previous()

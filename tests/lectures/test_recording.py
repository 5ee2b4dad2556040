"""A recorded lecture without a window: ``LectureDraft``'s edits, its preset in the existing schema (which
``presets check`` accepts), portable references, and opening an existing preset to edit."""

from __future__ import annotations

import json

import pytest

from lm_workbench.cli.main import main
from lm_workbench.lectures.library import data_path, find_builtin, load_preset_file, user_presets, user_presets_folder
from lm_workbench.lectures.recording import DraftStep, LectureDraft, make_step, slug
from lm_workbench.lectures.schema import FORMAT, PresetError, parse_preset


def attention_step(caption: str, layer: int) -> DraftStep:
    return make_step("attention", caption, ({"layer": layer, "heads": "all", "hide_special": True,
                                             "threshold": 0.0}, {}),
                     text="The cat sat.", pair="It was tired.", model="minilm")


def draft_of_three() -> LectureDraft:
    draft = LectureDraft("Attention, three ways")
    draft.add(attention_step("layer 0", 0))
    draft.add(make_step("prompting", "a prompt", ({"mode": "cloze", "template": "[x] It was [z].", "x": "Good.",
                                                   "x2": "", "page": "Score"}, {}), model="minilm"))
    draft.add(attention_step("layer 2", 2))
    return draft


def test_add_recaption_move_retake_delete():
    draft = draft_of_three()
    seen = []
    draft.events.changed.connect(lambda: seen.append(len(draft.steps)))
    assert [s.caption for s in draft.steps] == ["layer 0", "a prompt", "layer 2"]
    draft.recaption(1, "  the cloze\nprompt ")
    assert draft.steps[1].caption == "the cloze prompt"  # one line
    assert draft.move(2, 0) == 0
    assert [s.caption for s in draft.steps] == ["layer 2", "layer 0", "the cloze prompt"]
    draft.reorder([1, 0, 2])
    assert [s.caption for s in draft.steps] == ["layer 0", "layer 2", "the cloze prompt"]
    draft.retake(1, attention_step("ignored", 5))
    assert draft.steps[1].caption == "layer 2" and draft.steps[1].settings["layer"] == 5  # the caption stays
    assert draft.delete(0).caption == "layer 0" and len(draft.steps) == 2
    assert seen == [3, 3, 3, 3, 2]
    with pytest.raises(IndexError):
        draft.recaption(7, "x")
    with pytest.raises(ValueError):
        draft.reorder([0, 0])


def test_to_dict_is_a_valid_preset_in_the_existing_schema(tmp_path, capsys):
    draft = draft_of_three()
    data = draft.to_dict()
    assert data["format"] == FORMAT and data["name"] == "attention-three-ways" and data["model"] == "minilm"
    assert data["steps"][0] == {"view": "attention", "caption": "layer 0",
                                "inputs": {"text": "The cat sat.", "pair": "It was tired."},
                                "settings": {"layer": 0, "heads": "all", "hide_special": True, "threshold": 0.0}}
    assert "inputs" not in data["steps"][1] and "model" not in data["steps"][1]
    preset = parse_preset(data)
    assert [s.settings for s in preset.steps] == [s.settings for s in draft.steps]
    path = draft.save(tmp_path / "mine.json")
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert main(["presets", "check", str(path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["steps"] == 3 and row["available"] is True and all(row["steps_available"])


def test_an_empty_lecture_is_refused_by_the_schema():
    with pytest.raises(PresetError, match="steps: must be a non-empty list"):
        LectureDraft("Nothing yet").to_dict()


def test_a_step_on_another_model_keeps_it_and_the_default_saves_to_the_user_folder(fresh_home):
    draft = LectureDraft("Two models")
    draft.add(attention_step("minilm", 0))
    draft.add(make_step("tokens", "bert", None, text="Hi", model="course:bert"))
    data = draft.to_dict()
    assert data["model"] == "minilm" and data["steps"][1]["model"] == "course:bert"
    assert data["steps"][1]["inputs"] == {"text": "Hi"} and "settings" not in data["steps"][1]
    path = draft.save()
    assert path == user_presets_folder() / "two-models.json" and str(path).startswith(str(fresh_home))
    (user_presets_folder() / "broken.json").write_text("{", encoding="utf-8")
    presets, problems = user_presets()
    assert [p.name for p in presets] == ["two-models"] and len(problems) == 1 and "broken.json" in problems[0]


def test_course_models_and_builtin_data_are_written_portably(tmp_path):
    course = {"bert": str(tmp_path / "course" / "bert" / "model")}
    step = make_step("probing", "sense", ({"task": str(data_path("word_sense.tsv")), "kind": "sentence"},
                                          {"corpus": {"lines": ["a", "b"], "labels": None, "label_name": None}}),
                     model="minilm", course_models=course)
    assert step.settings == {"task": "preset-data:word_sense.tsv", "kind": "sentence"}
    assert step.inputs == {"corpus": {"lines": ["a", "b"]}}
    step = make_step("masking_lab", "t", ({"tokenizer": course["bert"], "seed": 1}, {}), text="x",
                     course_models=course)
    assert step.settings["tokenizer"] == "course:bert" and step.inputs == {"text": "x"}
    assert make_step("masking_lab", "t", ({"tokenizer": None}, {})).settings == {"tokenizer": None}


def test_an_existing_preset_opens_for_editing_and_saves_the_same(tmp_path):
    preset = find_builtin("bert-masking")
    draft = LectureDraft.from_preset(preset)
    assert draft.path is None and [s.caption for s in draft.steps] == [s.caption for s in preset.steps]
    assert draft.to_dict() == preset.to_dict()
    draft.recaption(0, "Fifteen percent")
    draft.move(0, 2)
    path = draft.save(tmp_path / "edited.json")
    again = LectureDraft.from_preset(load_preset_file(path))
    assert again.path == path and again.steps[2].caption == "Fifteen percent"
    assert again.steps[2].settings == preset.steps[0].settings and again.name == "bert-masking"


def test_slug():
    assert slug("BERT masking: 15% & 80/10/10!") == "bert-masking-15-80-10-10"
    assert slug("   ") == "my-lecture" and len(slug("x" * 100)) == 64

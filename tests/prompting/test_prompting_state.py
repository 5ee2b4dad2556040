"""The Prompting tab's state without Qt: problems as typed, the comparison, few-shot choices and the k band,
generation events, and prompt sets in and out."""

from __future__ import annotations

import pytest

from lm_workbench.prompting.state import EvaluationRow, PromptingState


def _recorder(state: PromptingState) -> list[str]:
    seen: list[str] = []
    for name in state.events.names():
        getattr(state.events, name).connect(lambda name=name: seen.append(name))
    return seen


def test_template_problems_follow_the_mode_and_clear_the_scored_prompt():
    state = PromptingState()
    assert state.usable() and state.template_problems() == []
    state.set_scored(object())
    seen = _recorder(state)
    state.set_template("[x] it was [z] and [w]")
    assert state.scored is None and seen[:2] == ["prompt_changed", "score_changed"]
    [problem] = state.template_problems()
    assert problem.message.startswith("unknown slot [w]") and state.template[problem.start:problem.end] == "[w]"
    state.set_template("[x] Overall, it was a [z] movie.")
    state.set_mode("prefix")  # the default template follows the mode while it is untouched
    assert state.template == "[x] Overall, this movie is [z]" and state.usable()
    state.set_mode("cloze")
    state.set_template("[x] Overall, it was a [z] great movie.")
    assert state.usable()
    state.set_mode("prefix")  # a decoder: [z] must end the template
    assert not state.usable() and "must end with [z]" in state.template_problems()[0].message
    state.set_template("[x] Overall, this movie is [z]")
    assert state.usable() and state.text_before_answer() == f"{state.x} Overall, this movie is "
    state.set_verbalizer("pos=")
    assert state.verbalizer_problem() and not state.usable()


def test_comparison_rows_and_the_accuracy_band():
    state = PromptingState()
    assert state.prompts_to_evaluate() == [(state.template, state.verbalizer)]  # the current prompt alone
    assert not state.add_current_to_comparison()  # already there
    state.set_template("[x] All in all, it was [z].")
    assert state.add_current_to_comparison() and len(state.rows) == 2
    state.remove_row(0)
    assert [r.template for r in state.rows] == ["[x] All in all, it was [z]."]

    state.set_fewshot(k=4, selection="balanced", order="by-label", seed=3)
    assert (state.fewshot.k, state.fewshot.selection, state.fewshot.order, state.fewshot.seed) == (
        4, "balanced", "by-label", 3)
    with pytest.raises(ValueError):
        state.set_fewshot(selection="nearest")
    state.add_curve_point(2, [0.5, 0.7, 0.6])
    state.add_curve_point(0, [0.4])
    assert state.curve_band() == ([0, 2], [0.4, pytest.approx(0.6)], [0.4, 0.5], [0.4, 0.7])
    header, rows = state.curve_table()
    assert header[0] == "k" and rows[1][-1] == 3


def test_generation_events_and_text():
    state = PromptingState()
    seen = _recorder(state)
    state.start_generation("The film was")
    state.add_generated(11, " very", 0.25)
    state.add_generated(12, " good", 0.5)
    state.end_generation("stopped by eos")
    assert seen == ["generation_changed"] * 4
    assert state.generated_text() == " very good" and state.generated[1] == (12, " good", 0.5)


def test_prompt_set_out_and_back_in(tmp_path):
    from lm_workbench.engine.prompting.prompt_set import NamedTemplate, NamedVerbalizer
    from lm_workbench.prompting.files import PromptSetFile, load_prompt_set, save_prompt_set

    data = tmp_path / "d.tsv"
    data.write_text("sentence\tlabel\nGood.\tpos\nBad.\tneg\n", encoding="utf-8")
    state = PromptingState()
    state.rows = [EvaluationRow("[x] It was [z].", "pos=good;neg=bad")]
    state.set_data(str(data))
    saved = save_prompt_set(state.to_prompt_set("mine"), tmp_path / "mine.json")
    back = load_prompt_set(saved)
    assert [t.text for t in back.templates] == ["[x] It was [z].", state.template]
    assert [v.spec for v in back.verbalizers] == ["pos=good;neg=bad", state.verbalizer]
    assert back.examples == [{"text": "Good.", "label": "pos"}, {"text": "Bad.", "label": "neg"}]

    fresh = PromptingState()
    fresh.set_mode("prefix")
    mixed = PromptSetFile("m", templates=[NamedTemplate("c", "[x] It was [z].", "cloze"),
                                          NamedTemplate("p", "[x] It was [z]", "prefix")],
                          verbalizers=[NamedVerbalizer("v", "pos=good;neg=bad")])
    fresh.apply_prompt_set(mixed, data)
    assert [(r.template, r.verbalizer) for r in fresh.rows] == [("[x] It was [z]", "pos=good;neg=bad")]
    assert fresh.template == "[x] It was [z]" and fresh.data_path == str(data) and fresh.set_name == "m"


def test_model_candidates_are_recent_then_cached_hub_models(tmp_path):
    from lm_workbench.models.candidates import cached_hub_models, model_candidates

    for name in ("models--google-bert--bert-base-uncased", "models--openai-community--gpt2", "datasets--x--y"):
        (tmp_path / name).mkdir()
    assert cached_hub_models(tmp_path) == ["google-bert/bert-base-uncased", "openai-community/gpt2"]
    assert model_candidates(["/m/tiny", "openai-community/gpt2", "/m/big"], exclude="/m/tiny", cache=tmp_path) == [
        "openai-community/gpt2", "/m/big", "google-bert/bert-base-uncased"]
    assert cached_hub_models(tmp_path / "none") == []


def test_the_state_offers_the_engines_choices():
    from lm_workbench.engine.prompting.scoring import MULTI_TOKEN
    from lm_workbench.prompting.state import MULTI_TOKEN_MODES

    assert MULTI_TOKEN_MODES == MULTI_TOKEN

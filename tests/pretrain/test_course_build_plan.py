"""Course models, without a window (issue 48.4): which families a build makes and which it skips (the card's
version), the rebuild offer, the estimate against a formula written here, ``course:<family>`` while a build makes
it, lecture steps waiting for one, and the recent models keeping one entry per course model."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.pretrain import course_build, course_estimate
from lm_workbench.pretrain.course_cards import COURSE_MODEL_VERSION, rebuild_offer
from lm_workbench.pretrain.course_folders import course_root, plan_build, resolve_course_spec


def install(root: Path, family: str, card: dict | str | None) -> Path:
    """A course model folder ``root/family`` (``model/config.json``) with ``card`` (a dict, raw text, or none)."""
    model = root / family / "model"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}", encoding="utf-8")
    if card is not None:
        text = card if isinstance(card, str) else json.dumps(card)
        (model / "workbench_model.json").write_text(text, encoding="utf-8")
    return root / family


def card(family: str, **extra) -> dict:
    return {"display_name": family, "tiny_for_demonstrations": True, "family": family, **extra}


# (card written, built again by a build that resumes, rebuild offered)
CARDS = [
    pytest.param(card("bert", version=COURSE_MODEL_VERSION), False, False, id="this version: skipped"),
    pytest.param(card("bert", version=COURSE_MODEL_VERSION + 1), False, False, id="newer: skipped"),
    pytest.param(card("bert"), True, True, id="no version (issue 48's models): rebuilt"),
    pytest.param(card("bert", version=COURSE_MODEL_VERSION - 1), True, True, id="older: rebuilt"),
    pytest.param(card("bert", version="2"), True, True, id="version not a number: as unversioned"),
    pytest.param("{not json", True, False, id="damaged card: rebuilt, nothing to offer"),
    pytest.param(None, True, False, id="no card: rebuilt"),
]


@pytest.mark.parametrize(("written", "rebuilt", "offered"), CARDS)
def test_a_build_resumes_skipping_what_this_version_built(fresh_home, written, rebuilt, offered):
    folder = install(course_root(), "bert", written)
    plan = plan_build(["bert", "gpt2"])
    assert plan.build == (("bert", "gpt2") if rebuilt else ("gpt2",))
    assert plan.skipped == ({} if rebuilt else {"bert": folder})
    assert ("BERT is already built at this version: skipped" in plan.skipped_line()) is not rebuilt
    assert plan_build(["bert", "gpt2"], rebuild=True).build == ("bert", "gpt2")  # Build again: everything
    line = rebuild_offer(folder)
    assert (line is not None) is offered
    if offered:
        assert f"the lectures expect {COURSE_MODEL_VERSION}): rebuild it." in line and len(line.splitlines()) == 1


def test_an_explicit_output_folder_is_planned_on_its_own(fresh_home, tmp_path):
    install(course_root(), "gpt2", card("gpt2", version=COURSE_MODEL_VERSION))  # built in the data folder
    install(tmp_path / "out", "t5", card("t5", version=COURSE_MODEL_VERSION))
    plan = plan_build(["gpt2", "t5"], tmp_path / "out")
    assert plan.build == ("gpt2",) and list(plan.skipped) == ["t5"]


def work(steps, batch, positions, vocab, hidden, layers, enc_dec=False):
    """Tokens seen x parameters (embeddings, per layer 4H² attention + 8H² feed-forward + 10H; an encoder-decoder's
    decoder adds as much again plus 4H² cross-attention), written out here."""
    per_layer = 4 * hidden * hidden + 8 * hidden * hidden + 10 * hidden
    body = layers * per_layer + (layers * (per_layer + 4 * hidden * hidden) if enc_dec else 0)
    return steps * batch * positions * (vocab * hidden + positions * hidden + body)


def test_the_estimate_scales_the_measurement_by_the_work_asked(fresh_home, monkeypatch):
    from lm_workbench.pretrain import course_models

    measured_s, then = course_estimate.MEASURED["bart"]
    _, arch, training = course_models.COURSE_SETTINGS["bart"]
    now = {**arch, **training}
    guess = course_estimate.estimate_family("bart")  # no run store here: the measurement, scaled
    expected = measured_s * work(now["steps"], now["batch_size"], now["max_positions"], now["vocab_size"],
                                 now["hidden"], now["layers"], True) / work(
        then["steps"], then["batch_size"], then["max_positions"], then["vocab_size"], then["hidden"], then["layers"],
        True)
    assert guess.seconds == pytest.approx(expected) and guess.source == course_estimate.MEASURED_WHERE
    assert "an estimate" in guess.describe()
    monkeypatch.setitem(course_models.COURSE_SETTINGS, "bart",
                        ("bart", {**arch, "hidden": 2 * arch["hidden"]}, {**training, "steps": 3 * training["steps"]}))
    bigger = course_estimate.estimate_family("bart")
    assert bigger.seconds == pytest.approx(measured_s * work(
        3 * now["steps"], now["batch_size"], now["max_positions"], now["vocab_size"], 2 * now["hidden"],
        now["layers"], True) / work(then["steps"], then["batch_size"], then["max_positions"], then["vocab_size"],
                                    then["hidden"], then["layers"], True))


def test_the_estimate_reads_the_last_build_recorded_here(fresh_home):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.pretrain.course_models import course_spec, display_name
    from lm_workbench.store.run_store import RunStore

    spec = course_spec("gpt2", Path("corpus.txt"), course_root()).to_dict()
    spec["training"]["steps"] = 100  # the last build ran 100 steps in 20 s; today's settings ask for more
    with RunStore(runs_db_path()) as store:
        run_id = store.create_run("pretrain", name=display_name("gpt2"), params=spec)
        store.start_run(run_id)
        time.sleep(0.05)
        store.finish_run(run_id, "finished")
        row = store.get_run(run_id)
        store.create_run("pretrain", name=display_name("bert"), params=spec)  # another family's: not read
    took = row["finished_at"] - row["started_at"]
    guess = course_estimate.estimate_family("gpt2")
    steps_now = course_estimate.configured("gpt2")["steps"]
    assert guess.source == f"the last build here, run #{run_id}"
    assert guess.seconds == pytest.approx(took * steps_now / 100)


def test_course_spec_says_a_model_is_on_its_way_while_the_build_makes_it(fresh_home):
    state = course_build.CourseBuildState(["bert", "gpt2", "t5"])
    course_build.set_current_build(state)
    try:
        state.started("bert", 1)
        with pytest.raises(course_build.CourseModelComing, match=r"GPT-2 model is on its way \(building, 0 of 3 "):
            resolve_course_spec("course:gpt2")
        folder = install(course_root(), "bert", card("bert", version=COURSE_MODEL_VERSION))
        state.arrived("bert", str(folder))
        assert resolve_course_spec("course:bert") == str(folder)
        with pytest.raises(course_build.CourseModelComing, match=r"building, 1 of 3 done"):
            resolve_course_spec("course:t5")
        with pytest.raises(WorkbenchError, match="not pre-trained on this machine") as raised:
            resolve_course_spec("course:elmo")  # not in this build
        assert not isinstance(raised.value, course_build.CourseModelComing)
        state.stop("cancelled")
        with pytest.raises(WorkbenchError, match="not pre-trained on this machine") as raised:
            resolve_course_spec("course:gpt2")  # the build stopped: no longer on its way
        assert not isinstance(raised.value, course_build.CourseModelComing)
    finally:
        course_build.set_current_build(None)


def test_a_lecture_step_waits_for_a_course_model_on_its_way():
    from lm_workbench.lectures.availability import check_preset
    from lm_workbench.lectures.schema import Preset, PresetStep

    preset = Preset(name="p", title="P", description="", model="default",
                    steps=(PresetStep(view="attention", caption="a"),
                           PresetStep(view="attention", caption="b", model="course:gpt2"),
                           PresetStep(view="masking_lab", caption="c", settings={"tokenizer": "course:t5"})))
    views = {"attention": frozenset(), "masking_lab": frozenset({"tokenizer"})}
    alone = check_preset(preset, views, {})
    assert alone.available and [s.available for s in alone.steps] == [True, False, False]
    building = check_preset(preset, views, {}, coming=["gpt2", "t5"])
    assert [(s.available, s.waiting) for s in building.steps] == [(True, ()), (True, ("gpt2",)), (True, ("t5",))]
    arrived = check_preset(preset, views, {"gpt2": "/x/gpt2"}, coming=["t5"])
    assert [s.waiting for s in arrived.steps] == [(), (), ("t5",)]


FORMS = st.lists(st.tuples(st.sampled_from(["bart", "gpt2", "other"]), st.booleans()), max_size=8)


@settings(derandomize=True, deadline=None, max_examples=20)
@given(FORMS)
def test_the_recent_models_keep_one_entry_per_course_model(tmp_path_factory, forms):
    """However the list names a course model (``<family>`` or ``<family>/model``, the reported "bart/model" and
    "bart" among them), loading the settings, adding and offering keep one entry per model."""
    from lm_workbench.settings import Settings

    root = tmp_path_factory.mktemp("recent")
    for family in ("bart", "gpt2"):
        (root / family / "model").mkdir(parents=True)
        (root / family / "model" / "config.json").write_text("{}", encoding="utf-8")
    specs = [str(root / name / "model") if inner and name != "other" else
             (str(root / name) if name != "other" else "minilm") for name, inner in forms]
    specs += [str(root / "bart" / "model"), str(root / "bart")]  # the report's two entries
    loaded = Settings.from_dict({"recent_models": specs})
    models = [str(Path(s)) for s in loaded.recent_models]
    assert len(models) == len(set(models))
    assert models.count(str(root / "bart" / "model")) == 1 and str(root / "bart") not in models
    loaded.add_recent(str(root / "gpt2"))
    assert loaded.recent_models[0] == str(root / "gpt2" / "model") and str(root / "gpt2") not in loaded.recent_models
    assert loaded.offer_recent(str(root / "bart")) is False  # already there as bart/model
    assert len(loaded.recent_models) == len(set(loaded.recent_models))


@pytest.mark.parametrize(("bundled", "here", "opens"), [
    (None, COURSE_MODEL_VERSION, "here"),  # none bundled
    (COURSE_MODEL_VERSION, COURSE_MODEL_VERSION, "bundle"),  # the bundle's wins, as before
    ("none", COURSE_MODEL_VERSION, "here"),  # the bundle's is of an earlier version (no version): rebuilt here
    ("none", "none", "bundle"),  # both older: the bundle's
])
def test_course_spec_opens_a_model_of_this_version_before_an_older_bundled_one(fresh_home, tmp_path, monkeypatch,
                                                                              bundled, here, opens):
    import sys

    from lm_workbench.lectures.availability import installed_course_models

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    folders = {}
    for where, root, version in (("bundle", tmp_path / "bundle" / "course-models", bundled),
                                 ("here", course_root(), here)):
        if version is not None:
            extra = {} if version == "none" else {"version": version}
            folders[where] = install(root, "bert", card("bert", **extra))
    assert resolve_course_spec("course:bert") == str(folders[opens])
    assert installed_course_models() == {"bert": str(folders[opens])}  # what lecture presets open

"""The course models built from the window (issue 48.4) with real widgets and real runs on the long-run lane, each
family a tiny 2-step configuration: the first launch's offer (answered once, remembered), Cancel (only the model
that started is recorded; the banner clears), the dialog's choice of families and its resume, a view asking for a
course model while it is built ("building, 0 of 1 done") and computing when it arrives, the card's version, one
recent entry per course model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore
from tests.support.pretrain_corpus import write_corpus

pytestmark = pytest.mark.timeout(240)

BUILD_WAIT = 120_000  # ms: a 2-step run in a spawned child, far longer on a machine shared by several suites
TINY = {"hidden": 64, "layers": 1, "max_positions": 32, "vocab_size": 300}
TINY_TRAINING = {"steps": 2, "batch_size": 4, "lr": 1e-3, "warmup_steps": 1, "threads": 1, "eval_batches": 1,
                 "log_every": 1}


@pytest.fixture
def tiny_course(monkeypatch):
    """Every transformer family's course settings shrunk to 2 steps (the same build path, seconds instead of
    minutes)."""
    from lm_workbench.pretrain import course_models

    for family in ("bert", "gpt2", "bart", "t5"):
        objective = course_models.COURSE_SETTINGS[family][0]
        monkeypatch.setitem(course_models.COURSE_SETTINGS, family, (objective, TINY, TINY_TRAINING))


def runs() -> list[tuple[str, str]]:
    with RunStore(runs_db_path()) as store:
        return [(r["name"], r["status"]) for r in reversed(store.list_runs(recover=False))]


def test_offer_cancel_choice_resume_and_a_view_waiting(open_window, qtbot, fresh_home, tmp_path, tiny_models,
                                                       tiny_course):
    from lm_workbench.pretrain.course_cards import COURSE_MODEL_VERSION
    from lm_workbench.pretrain.course_models import display_name
    from lm_workbench.settings import load_settings
    from lm_workbench.ui.app import _offer_course_models
    from lm_workbench.ui.masking_lab.masking_lab_view import OTHER_TOKENIZER
    from lm_workbench.ui.window.main_window import MainWindow

    window = open_window(str(tiny_models["bert"]), "pretrain", size=(1024, 768), persist=True)
    course, pretrain = window.course, window.view("pretrain")
    builder = course.builder
    builder.corpus = str(write_corpus(tmp_path / "corpus.txt", n_documents=40))

    # First launch: one banner; Build in the background starts all five, the answer is saved.
    assert course.offer_first_launch() and course.offer.isVisible()
    course.offer.build_button.click()
    assert course.offer is None and load_settings().course_models_offer == "build"
    assert builder.state.families == ["bert", "gpt2", "bart", "t5", "elmo"] and builder.state.current == "bert"
    assert course.indicator.text().startswith("Course models: model 1 of 5 (BERT)")
    assert pretrain.run_id == builder.state.runs["bert"]  # the Pre-train tab follows it
    assert pretrain.message_bar.isVisible() and "Building the course models" in pretrain.message_bar.text()

    # Cancel (the tab's): the model that started is cancelled; the four that never started leave no run.
    qtbot.waitUntil(lambda: pretrain.cancel_button.isEnabled(), timeout=10_000)
    pretrain.cancel_button.click()
    qtbot.waitUntil(lambda: builder.state.status == "cancelled", timeout=BUILD_WAIT)
    assert runs() == [(display_name("bert"), "cancelled")]
    assert not pretrain.message_bar.isVisible()  # the banner went with the build
    assert course.indicator.text() == "Course models cancelled: 0 of 5 built (none)"
    dialog = course.open_dialog()
    assert dialog.ran_label.text() == f"BERT: cancelled (run #{builder.state.runs['bert']})"

    # A view asks for course:bert: not built, it says how to build it.
    window.show_view("masking_lab")
    lab = window.view("masking_lab")
    window.text_input.set_text("The value of the object is a simple number.")
    lab.tokenizer_combo.setCurrentIndex(OTHER_TOKENIZER)
    lab.tokenizer_edit.setText("course:bert")
    lab.inputs_changed.emit()
    qtbot.waitUntil(lambda: "not pre-trained on this machine" in lab.notice.text(), timeout=30_000)

    # The dialog: only BERT ticked; Start builds it (model 1 of 1). Meanwhile the view, the model box and a
    # lecture on the course BERT each say it is on its way ...
    dialog.choose(["bert"])
    assert dialog.total_label.text().startswith("Start builds 1 model(s): about ")
    assert "An estimate from" in dialog.total_label.text()
    dialog.start_button.click()
    assert builder.building and builder.state.families == ["bert"] and not dialog.start_button.isEnabled()
    assert dialog.model_label.text().startswith("Model 1 of 1 (BERT)")
    qtbot.waitUntil(lambda: "on its way (building, 0 of 1 done)" in lab.notice.text() or not builder.building,
                    timeout=30_000)
    assert "on its way (building, 0 of 1 done)" in lab.notice.text(), lab.notice.text()
    window.load_model("course:bert")
    qtbot.waitUntil(lambda: not window.loading, timeout=30_000)
    assert window.message_bar.text().startswith("course:bert: the course BERT model is on its way (building, 0 of 1 "
                                                "done)"), window.message_bar.text()
    lectures = window.lectures
    assert lectures.start(next(p for p in lectures.presets if p.name == "why-not-the-other-word"))
    assert "needs the course BERT model, on its way (building, 0 of 1 done)" in window.message_bar.text()
    assert builder.building  # (all three were asked while it built)
    window.grab().save(str(tmp_path / "building.png"))
    qtbot.waitUntil(lambda: builder.state.status == "finished", timeout=BUILD_WAIT)
    # ... and each computes once it has arrived: the lecture's step opens on the course BERT, the view reads its
    # tokenizer.
    folder = fresh_home / "data" / "course-models" / "bert"
    qtbot.waitUntil(lambda: window.loaded is not None and Path(window.loaded.info.folder) == folder / "model"
                    and not window.loading, timeout=30_000)
    assert lectures.runner.index == 0 and window.view_host.current_entry().id == "predictions"
    assert "on its way" not in window.message_bar.text()
    window.show_view("masking_lab")
    qtbot.waitUntil(lambda: "course:bert" in lab.state.tokenizers and lab.result is not None, timeout=30_000)
    assert "on its way" not in lab.notice.text()
    lectures.runner.stop()
    assert runs() == [(display_name("bert"), "cancelled"), (display_name("bert"), "finished")]
    card = json.loads((folder / "model" / "workbench_model.json").read_text(encoding="utf-8"))
    assert card["version"] == COURSE_MODEL_VERSION and card["family"] == "bert" and card["build_seconds"] > 0
    assert dialog.ran_label.text().splitlines() == [f"BERT: built (run #{builder.state.runs['bert']})"]

    # One recent entry for the course BERT, however it is named (its folder, its model/).
    recent = window.settings.recent_models
    assert recent.count(str(folder / "model")) == 1 and str(folder) not in recent
    _offer_course_models(window.settings)  # what the next start adds: the bundled and built course models
    assert str(folder) not in window.settings.recent_models
    window.register_model(str(folder))
    course_entries = [r for r in window.settings.recent_models if Path(r) in (folder, folder / "model")]
    assert course_entries == [str(folder / "model")]  # not also "bert" (the report: "bart/model" and "bart")
    shown = [window.model_panel.recent_list.item(i).data(Qt.ItemDataRole.UserRole)
             for i in range(window.model_panel.recent_list.count())]
    assert [r for r in shown if Path(r) in (folder, folder / "model")] == [str(folder / "model")]

    # A partial build resumes: BERT is skipped, said before Start.
    dialog.choose(["bert", "gpt2"])
    assert dialog.total_label.text().startswith("Start builds 1 model(s)")  # GPT-2
    assert dialog.state_labels["bert"].text() == "built at this version: skipped"
    assert dialog.state_labels["gpt2"].text() == "not built yet"
    dialog.grab().save(str(tmp_path / "dialog.png"))

    # The answer is remembered: a later window does not ask again.
    later = MainWindow(load_settings(), persist=False)
    qtbot.addWidget(later)
    assert later.settings.course_models_offer == "build" and not later.course.offer_first_launch()
    later.close()


def test_a_course_model_of_an_earlier_version_is_offered_a_rebuild(open_window, qtbot, fresh_home, tiny_models):
    """A course model whose card has no version (as every model built before issue 48 does): one line in the model
    panel with Rebuild…, which opens the dialog with that family ticked to build again; the dialog says the same."""
    import shutil

    from lm_workbench.pretrain.course_cards import COURSE_MODEL_VERSION

    folder = fresh_home / "data" / "course-models" / "gpt2"
    shutil.copytree(tiny_models["gpt2"], folder / "model")
    card = {"display_name": "Tiny GPT-2 (clm) - tiny, for demonstrations", "tiny_for_demonstrations": True,
            "family": "gpt2", "steps": 300}
    (folder / "model" / "workbench_model.json").write_text(json.dumps(card), encoding="utf-8")
    window = open_window(str(folder), size=(1024, 768))
    line = window.course.rebuild_line
    assert line.isVisible() and line.label.text() == (
        f"A course GPT-2 model of an earlier version (no version recorded; the lectures expect {COURSE_MODEL_VERSION})"
        ": rebuild it.")
    line.button.click()
    dialog = window.course.dialog
    assert dialog.isVisible() and dialog.chosen() == ["gpt2"] and dialog.rebuild_check.isChecked()
    assert dialog.state_labels["gpt2"].text() == "built by an earlier version: built again"
    assert dialog.total_label.text().startswith("Start builds 1 model(s)")
    card["version"] = COURSE_MODEL_VERSION  # rebuilt: the line goes
    (folder / "model" / "workbench_model.json").write_text(json.dumps(card), encoding="utf-8")
    window.load_model(str(tiny_models["bert"]))
    qtbot.waitUntil(lambda: window.loaded is not None and "bert" in window.loaded.info.folder, timeout=30_000)
    window.load_model(str(folder))
    qtbot.waitUntil(lambda: window.loaded is not None and "course-models" in window.loaded.info.folder,
                    timeout=30_000)
    assert not line.isVisible()

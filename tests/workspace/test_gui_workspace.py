"""Workspaces in the window: save, close, reopen in a new window with the same state; a damaged one opens
what it can and says what it could not."""

from __future__ import annotations

import json
import zipfile

import pytest

from lm_workbench.lectures.library import find_builtin
from lm_workbench.settings import Settings

pytestmark = pytest.mark.timeout(240)

WAIT = 30000


def settled(window) -> bool:
    return not window.jobs.busy and not window.text_input.pending() and not window.loading


def build_session(open_window, qtbot):
    """MiniLM; the embeddings on the static-vs-contextual corpus with "bank" picked; then the masking lab at step
    2 of the BERT lecture with a hand-changed setting."""
    window = open_window("minilm", about=False)
    emb, lab = window.view("embeddings"), window.view("masking_lab")
    assert window.lectures.start(find_builtin("static-vs-contextual"), index=1)
    qtbot.waitUntil(lambda: settled(window) and emb.state.current_occurrence() is not None, timeout=WAIT)
    emb.neighbours.k_spin.setValue(6)
    assert window.lectures.start(find_builtin("bert-masking"), index=1)
    qtbot.waitUntil(lambda: settled(window) and lab.result is not None and lab.result["seed"] == 2, timeout=WAIT)
    lab.form.editors["random_token_prob"].setValue(0.2)  # the teacher tried something
    qtbot.waitUntil(lambda: settled(window) and "random_token_prob=0.2" in lab.shown_key[5], timeout=WAIT)
    prompting, finetune = window.view("prompting"), window.view("finetune")
    prompting.state.set_template("[x] In short, it was [z].")
    prompting.state.set_inputs("A warm and funny film.")
    prompting.pages.setCurrentIndex(2)
    finetune.bench.set_ticked(["lora", "bitfit"])
    finetune.form.set_values(epochs=2, seed=7)
    return window


def snapshot(window) -> dict:
    emb, lab = window.view("embeddings"), window.view("masking_lab")
    row = emb.state.current_occurrence()
    return {"model": window.loaded.info.spec, "text": window.text_input.text(), "pair": window.text_input.pair(),
            "view": window.view_host.current_entry().id, "caption": window.lectures.bar.text(),
            "step": window.lectures.runner.index, "lab_input": lab.grid.row("input").ids(),
            "lab_state": lab.preset_state(), "prompting": window.view("prompting").preset_state(),
            "finetune": window.view("finetune").preset_state(), "corpus": emb.state.corpus.lines, "labels": emb.state.corpus.labels,
            "query": (emb.state.table.words[row], row), "k": emb.neighbours.k(),
            "neighbours": [emb.neighbours.contextual.row_index(i) for i in range(emb.neighbours.contextual.rowCount())]}


def reopen(open_window, qtbot, path, settings):
    window = open_window(settings=settings, about=False)
    ws = window.workspaces.open(path)
    emb, lab = window.view("embeddings"), window.view("masking_lab")
    qtbot.waitUntil(lambda: window.loaded is not None and settled(window) and lab.result is not None, timeout=WAIT)
    window.show_view("embeddings")
    qtbot.waitUntil(lambda: settled(window) and emb.state.current_occurrence() is not None
                    and emb.neighbours.contextual.rowCount() > 0, timeout=WAIT)
    window.show_view(ws.current_view)
    return window


def test_round_trip_in_a_new_window(open_window, qtbot, tmp_path, minilm):  # minilm: warm imports before the window
    window = build_session(open_window, qtbot)
    before = snapshot(window)
    assert before["caption"].startswith("Step 2/3:") and before["lab_state"][0]["config"]["random_token_prob"] == 0.2
    assert before["prompting"][0]["x"] == "A warm and funny film." and before["prompting"][0]["page"] == "Few-shot"
    assert before["finetune"][0]["methods"] == ["lora", "bitfit"] and before["finetune"][0]["seed"] == 7
    path = window.workspaces.save(tmp_path / "lecture.lmw")
    assert window.settings.recent_workspaces == [str(path)]
    with zipfile.ZipFile(path) as zf:  # JSON only: nothing that would run code when read
        assert all(n.endswith(".json") for n in zf.namelist())
    window.close()

    again = reopen(open_window, qtbot, path, Settings(recent_workspaces=[str(path)]))
    assert snapshot(again) == before
    assert again.message_bar.text() == ""
    assert again.lectures.runner.active and again.lectures.next_action.isEnabled()
    again.lectures.show_start_page()  # the recent workspace is listed there
    page = again.lectures.start_page
    assert page.workspaces.item(0).text().startswith("lecture.lmw")
    page.close()


def test_damaged_workspace_opens_what_it_can(open_window, qtbot, tmp_path):
    from lm_workbench.workspace.format import Workspace, save_workspace

    corpus = {"lines": ["The bank was closed.", "We sat on the river bank."], "labels": ["money", "river"],
              "label_name": "sense"}
    good = save_workspace(Workspace(text="A sentence.", current_view="embeddings",
                                    views={"embeddings": {"settings": {"k": 6}, "inputs": {"corpus": corpus}},
                                           "masking_lab": {"settings": {"seed": 5}, "inputs": {}},
                                           "hologram": {"settings": {}, "inputs": {}}}), tmp_path / "good.lmw")
    damaged = tmp_path / "damaged.lmw"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(damaged, "w") as out:
        for name in src.namelist():
            raw = src.read(name)
            if name == "views/masking_lab.json":
                raw = raw[: len(raw) // 2]  # cut JSON
            if name == "workspace.json":
                manifest = json.loads(raw)
                manifest["version"] = 99
                raw = json.dumps(manifest).encode()
            out.writestr(name, raw)
    window = open_window(about=False)
    ws = window.workspaces.open(damaged)
    assert "views/masking_lab.json: not valid JSON" in " ".join(ws.problems)
    message = window.message_bar.text()
    assert "not all of it" in message and "masking_lab.json" in message and "version 99" in message
    assert "'hologram' view is not in this version" in message
    emb = window.view("embeddings")
    assert emb.state.corpus.lines == corpus["lines"] and emb.state.corpus.labels == corpus["labels"]
    assert emb.neighbours.k() == 6 and window.text_input.text() == "A sentence."
    assert window.view_host.current_entry().id == "embeddings"
    assert window.view("masking_lab").seed_spin.value() == 0  # its state was the damaged part: left as new

    truncated = tmp_path / "truncated.lmw"
    truncated.write_bytes(good.read_bytes()[:-100])
    ws = window.workspaces.open(truncated)
    assert ws is not None and ws.text == "A sentence." and "damaged" in window.message_bar.text()
    assert window.view("masking_lab").seed_spin.value() == 5


def test_compare_mode_round_trips(open_window, qtbot, tmp_path, tiny_models):
    """A workspace saved while comparing keeps model B: a new window opens A, then B once A has loaded, and
    the Predictions view shows B beside A; a workspace saved alone stops an ongoing comparison."""
    from PySide6.QtCore import Qt

    window = open_window(str(tiny_models["gpt2"]), "predictions", about=False)
    window.text_input.set_text("The cat sat on the")
    panel = window.compare.panel
    qtbot.keyClicks(panel.field, str(tiny_models["llama"]))
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None and settled(window), timeout=WAIT)
    path = window.workspaces.save(tmp_path / "ab.lmw")
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("workspace.json"))
    assert manifest["model_b"] == str(tiny_models["llama"]) and manifest["model"] == str(tiny_models["gpt2"])

    fresh = open_window(None, "predictions", about=False)
    fresh.workspaces.open(path)
    view = fresh.view("predictions")
    qtbot.waitUntil(lambda: fresh.compare.loaded is not None and view.ab.comparing() and bool(view.b.candidate_ids())
                    and settled(fresh), timeout=WAIT)
    assert fresh.loaded.info.folder == str(tiny_models["gpt2"])
    assert fresh.compare.loaded.info.folder == str(tiny_models["llama"])

    window.compare.stop()
    alone = window.workspaces.save(tmp_path / "alone.lmw")
    fresh.workspaces.open(alone)
    qtbot.waitUntil(lambda: fresh.compare.loaded is None and not view.ab.comparing() and settled(fresh), timeout=WAIT)

"""Running studies: resume after a kill skips finished cells; an identical cell is reused, not recomputed; a
failed cell is marked and the others go on; the baselines (TF-IDF + LR equals scikit-learn called directly; the
BiLSTM learns the demo set); a built-in study's table fills every cell on a tiny configuration."""

from __future__ import annotations

import json
import re
import threading

import pytest

from lm_workbench.studies.file import load_study
from lm_workbench.studies.runner import STATE_FILE, run_cells
from lm_workbench.studies.table import build_table
from lm_workbench.store import RunStore


def three_cells(tmp_path, name="s.json", extra_cell=None):
    cells = [{"id": f"c{c}", "row": f"C={c}", "kind": "tfidf-lr",
              "settings": {"train": "demo", "classifier": {"C": c}}} for c in (0.1, 1, 10)]
    if extra_cell:
        cells.append(extra_cell)
    path = tmp_path / name
    path.write_text(json.dumps({"format": "lm-workbench-study/1", "name": "three", "cells": cells,
                                "columns": [{"name": "accuracy", "metric": "accuracy"}]}), encoding="utf-8")
    return path


def drive(gen, stop_after=None):
    events = []
    for event in gen:
        events.append(event)
        if stop_after and stop_after(event):
            gen.close()  # the process dies here: no finally of ours runs past this point
            return events, None
    return events, None


def test_resume_after_a_kill_skips_finished_cells(tmp_path):
    study = load_study(three_cells(tmp_path), out_dir=tmp_path / "out")
    with RunStore(tmp_path / "runs.sqlite3") as store:
        # killed while cell 2 was running: its run is left "running", the state file says so
        events, _ = drive(run_cells(study, store, tmp_path / "out", threading.Event()),
                          stop_after=lambda e: e.cell == "c1" and e.status == "running")
        state = json.loads((tmp_path / "out" / STATE_FILE).read_text())
        assert state["cells"]["c0.1"]["status"] == "finished" and state["cells"]["c1"]["status"] == "running"
        first_run = state["cells"]["c0.1"]["run_id"]
        before = {r["id"] for r in store.list_runs(recover=False)}
        events = list(run_cells(study, store, tmp_path / "out", threading.Event()))
        said = {(e.cell, e.status) for e in events}
        assert ("c0.1", "resumed") in said and ("c1", "finished") in said and ("c10", "finished") in said
        new = {r["id"] for r in store.list_runs(recover=False)} - before
        assert len(new) == 2 and first_run not in new  # cells 2 and 3 ran; cell 1 did not run again
        gen = run_cells(study, store, tmp_path / "out", threading.Event())
        try:
            while True:
                next(gen)
        except StopIteration as stop:
            final = stop.value
        table = build_table(study, final.cells, store)
        assert all(r["local"]["accuracy"] is not None for r in table["rows"])


def test_an_identical_cell_is_reused_and_a_changed_one_is_not(tmp_path):
    with RunStore(tmp_path / "runs.sqlite3") as store:
        first = load_study(three_cells(tmp_path), out_dir=tmp_path / "a")
        list(run_cells(first, store, tmp_path / "a", threading.Event()))
        count = len(store.list_runs(recover=False))
        # another study (another folder) with the same three cells and one more
        extra = {"id": "new", "row": "new", "kind": "tfidf-lr", "settings": {"train": "demo", "seed": 5}}
        second = load_study(three_cells(tmp_path, "t.json", extra), out_dir=tmp_path / "b")
        events = list(run_cells(second, store, tmp_path / "b", threading.Event()))
        said = {e.cell: e.status for e in events if e.status in ("reused", "finished")}
        assert said == {"c0.1": "reused", "c1": "reused", "c10": "reused", "new": "finished"}
        assert len(store.list_runs(recover=False)) == count + 1
        reused = [e for e in events if e.status == "reused"]
        assert all("reuses run #" in e.message for e in reused)


def test_a_failed_cell_is_marked_and_the_others_go_on(tmp_path):
    missing = {"id": "gone", "row": "gone", "kind": "tfidf-lr", "settings": {"train": str(tmp_path / "no.tsv")}}
    study = load_study(three_cells(tmp_path, extra_cell=missing), out_dir=tmp_path / "out")
    study.cells = [study.cells[-1], *study.cells[:-1]]  # the bad cell first
    with RunStore(tmp_path / "runs.sqlite3") as store:
        events = list(run_cells(study, store, tmp_path / "out", threading.Event()))
        final = {e.cell: e for e in events if e.status in ("failed", "finished")}
        assert final["gone"].status == "failed" and "no.tsv" in final["gone"].message
        assert all(final[c].status == "finished" for c in ("c0.1", "c1", "c10"))
        assert store.get_run(final["gone"].run_id)["status"] == "failed"


def test_tfidf_baseline_equals_scikit_learn_called_directly():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from lm_workbench.baselines.runs import read_split
    from lm_workbench.baselines.spec import TfidfSpec
    from lm_workbench.engine.baselines.tfidf import fit_tfidf_lr

    spec = TfidfSpec(train="demo", seed=4, vectorizer={"ngram_range": [1, 1], "min_df": 2},
                     classifier={"C": 0.5})
    xs, ys, tx, ty, _notes = read_split(spec)
    ours = fit_tfidf_lr(xs, ys, tx, ty, vectorizer=spec.vectorizer, classifier=spec.classifier, seed=spec.seed)
    vec = TfidfVectorizer(ngram_range=(1, 1), min_df=2, sublinear_tf=True)
    clf = LogisticRegression(C=0.5, max_iter=1000, random_state=4).fit(vec.fit_transform(xs), ys)
    direct = list(clf.predict(vec.transform(tx)))
    assert ours.predictions == direct
    assert ours.accuracy == pytest.approx(sum(p == y for p, y in zip(direct, ty)) / len(ty))
    assert ours.trainable_parameters == clf.coef_.size + clf.intercept_.size


def test_bilstm_learns_the_demo_set():
    from lm_workbench.baselines.runs import read_split
    from lm_workbench.baselines.spec import BiLSTMSpec
    from lm_workbench.engine.baselines.bilstm import train_bilstm
    from lm_workbench.engine.progress import drive as run

    spec = BiLSTMSpec(train="demo", epochs=4, embedding=32, hidden=32)
    xs, ys, tx, ty, _notes = read_split(spec)
    result = run(train_bilstm(xs, ys, tx, ty, config=spec.config(), seed=0))
    majority = max(ty.count(y) for y in set(ty)) / len(ty)
    assert result.accuracy >= majority + 0.25, (result.accuracy, majority)
    assert result.curve[-1][1] < result.curve[0][1]  # the training loss fell


def test_a_builtin_study_fills_every_cell_at_tiny_scale(tmp_path, tiny_models, fresh_home, capsys):
    """Four paradigms at tiny scale, its course BERT pointed at the tiny test BERT (as a user points a study at
    their own model), through the CLI with --json."""
    from lm_workbench.cli.main import main

    code = main(["study", "run", "four-paradigms", "--scale", "tiny", "--set", f"bert={tiny_models['bert']}",
                 "--out", str(tmp_path / "fp"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err[-2000:]
    table = json.loads(out)
    assert table["name"] == "four-paradigms" and len(table["rows"]) == 6
    for row in table["rows"]:
        assert row["status"] == "done", row
        assert row["local"]["accuracy"] is not None and 0 <= row["local"]["accuracy"] <= 1
        assert row["local"]["time s"] is not None
    trained = {r["row"]: r["local"]["trained parameters"] for r in table["rows"]}
    assert trained["pre-train + fine-tune (LoRA)"] < trained["pre-train + fine-tune (full)"]
    assert table["cost"]["to_run"] == 6 and "cell 6 of 6" in err


@pytest.mark.parametrize("validation, keep, expected", [
    # the reported case: a validation label training never shows was scored as an error, silently
    ("text,label\ngood,pos\nbad,neutral\n", False, "never shows: 'neutral' (1)"),
    ("text,label\ngood,pos\nbad,neutral\n", True, (["good"], ["pos"], "1 validation example(s) left out")),
    ("text,label\ngood,pos\nawful,neg\n", False, (["good", "awful"], ["pos", "neg"], None)),
])
def test_the_baselines_follow_the_label_rule(tmp_path, validation, keep, expected):
    from lm_workbench.baselines.runs import read_split
    from lm_workbench.baselines.spec import TfidfSpec
    from lm_workbench.engine.errors import WorkbenchError

    train = tmp_path / "train.csv"  # as Excel writes it: a BOM, quoted cells with commas and doubled quotes
    train.write_text('\ufefftext,label\n"Great, really great",pos\n"Awful ""bad""",neg\nfine,pos\nugly,neg\n',
                     encoding="utf-8")
    val = tmp_path / "val.csv"
    val.write_text(validation, encoding="utf-8")
    spec = TfidfSpec(train=str(train), validation=str(val), keep_unseen_labels=keep)
    if isinstance(expected, str):
        with pytest.raises(WorkbenchError, match=re.escape(expected)):
            read_split(spec)
        return
    xs, ys, tx, ty, notes = read_split(spec)
    assert xs[:2] == ["Great, really great", 'Awful "bad"'] and ys == ["pos", "neg", "pos", "neg"]
    assert (tx, ty) == expected[:2]
    assert any(expected[2] in n for n in notes) if expected[2] else not any("left out" in n for n in notes)


def test_a_held_out_share_keeps_every_class():
    from lm_workbench.baselines.runs import read_split
    from lm_workbench.baselines.spec import TfidfSpec

    xs, ys, tx, ty, _notes = read_split(TfidfSpec(train="demo", validation_fraction=0.1, seed=3))
    assert set(ty) == set(ys) and len(tx) == round(0.1 * (len(xs) + len(tx)))

"""``lm-workbench --self-test``: every step passes on a working install; a failing step is named, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from lm_workbench.cli.main import main
from lm_workbench.self_test import BUILT_IN_OBJECTIVES, MODULES_ENV, STEPS
from lm_workbench.store import RunStore


def test_self_test_passes_on_the_default_model_and_leaves_no_run(fresh_home, capsys):
    assert main(["--self-test"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(STEPS) + 1 and out[-1] == "self-test: passed"
    for line, (name, _) in zip(out, STEPS):
        assert line.startswith(f"self-test: {name} ok")
    import torch
    import transformers

    assert f"transformers {transformers.__version__}" in out[0] and f"torch {torch.__version__}" in out[0]
    assert "minilm: bert, 6 layers, 22.7M parameters" in out[2]
    assert "hidden states (7, " in out[3]  # 6 layers + the embeddings, for real
    assert all(name in out[4] for name in BUILT_IN_OBJECTIVES)
    db = fresh_home / "data" / "runs.sqlite3"
    assert str(db) in out[5]
    with RunStore(db) as store:
        assert store.list_runs() == []  # the check run was written, read back and removed


def test_a_missing_model_fails_at_the_load_step(fresh_home, tmp_path, capsys):
    assert main(["--self-test", str(tmp_path / "no-such-model")]) == 1
    captured = capsys.readouterr()
    assert [line.split(" ok")[0] for line in captured.out.splitlines()] == [
        "self-test: versions", "self-test: settings"]  # only the versions and settings steps ran
    (line,) = captured.err.splitlines()
    assert line.startswith("self-test: FAILED at load the model:") and "no-such-model" in line


def test_an_unusable_run_store_fails_at_its_step(fresh_home, tiny_models, capsys):
    (fresh_home / "data" / "runs.sqlite3").mkdir(parents=True)  # a folder where the file should be
    assert main(["--self-test", str(tiny_models["bert"])]) == 1
    captured = capsys.readouterr()
    assert "self-test: list plugins ok" in captured.out
    assert captured.err.startswith("self-test: FAILED at run store: the run store ")
    assert len(captured.err.strip().splitlines()) == 1


def test_a_damaged_run_store_is_set_aside_and_the_self_test_passes(fresh_home, tiny_models, capsys):
    (fresh_home / "data").mkdir(parents=True)
    (fresh_home / "data" / "runs.sqlite3").write_bytes(b"this is not a database" * 100)
    assert main(["--self-test", str(tiny_models["bert"])]) == 0
    assert "run store ok" in capsys.readouterr().out
    assert len(list((fresh_home / "data").glob("runs.sqlite3.corrupt-*"))) == 1


def test_the_module_list_names_where_each_module_came_from(fresh_home, tiny_models, tmp_path, monkeypatch, capsys):
    target = tmp_path / "modules.json"
    monkeypatch.setenv(MODULES_ENV, str(target))
    assert main(["--self-test", str(tiny_models["bert"])]) == 0
    files = json.loads(target.read_text(encoding="utf-8"))
    root = Path(__file__).resolve().parents[2]
    assert Path(files["lm_workbench.self_test"]).resolve() == root / "workbench" / "self_test.py"
    assert "torch" in files and "transformers" in files and all(isinstance(v, str) for v in files.values())


def test_a_release_known_to_break_a_feature_is_flagged_and_the_feature_refuses(fresh_home, tiny_models, tmp_path,
                                                                                capsys, monkeypatch):
    import transformers

    from lm_workbench import versions

    installed = transformers.__version__
    known = versions.KnownBreak("transformers", f"=={installed}", "finetune:prefix", "prefix tuning",
                                "pip install 'transformers!=" + installed + "'")
    monkeypatch.setattr(versions, "KNOWN_BREAKS", (known,))
    assert main(["--self-test", str(tiny_models["bert"])]) == 0  # a warning, not a failure
    out = capsys.readouterr().out.splitlines()
    warning = [line for line in out if "WARNING" in line]
    assert warning == [f"self-test: WARNING: transformers {installed} is known to break prefix tuning; install "
                       f"another release: pip install 'transformers!={installed}'"]
    train = tmp_path / "train.tsv"
    train.write_text("sentence\tlabel\ngood film\t1\nbad film\t0\n", encoding="utf-8")
    argv = ["finetune", str(tiny_models["bert"]), "--task", "seq-cls", "--train", str(train), "--out",
            str(tmp_path / "out"), "--json"]
    assert main([*argv, "--method", "prefix"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"transformers {installed} is known to break prefix tuning" in err[0]
    assert versions.breaks_in_force("finetune:lora") == []  # another method is not refused
    assert versions.breaks_in_force("window", versions={"PySide6-Essentials": "6.12.0"},
                                    table=versions.KNOWN_BREAKS) == []  # not in the patched table


def test_the_table_names_pyside6_6_12_0_for_the_window_and_the_window_refuses_it(fresh_home, monkeypatch, capsys):
    import sys

    from lm_workbench.ui import app
    from lm_workbench import versions

    hits = versions.breaks_in_force("window", versions={"PySide6-Essentials": "6.12.0"})
    assert bool(hits) == (sys.version_info < (3, 12))
    assert versions.breaks_in_force("window", versions={"PySide6-Essentials": "6.11.3"}) == []
    assert versions.breaks_in_force("finetune:lora", versions={"PySide6-Essentials": "6.12.0"}) == []
    monkeypatch.setattr(versions, "installed_version", lambda package: "6.12.0")
    monkeypatch.setattr(versions, "_python_version", lambda: "3.11.9")
    assert app.run([]) == 2  # before any window or QApplication is made
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "PySide6-Essentials 6.12.0 is known to break the window" in line and "!=6.12.0" in line

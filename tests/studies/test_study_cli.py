"""The study and runs-diff commands: bad input exits 2 with one line on stderr naming the line; `runs diff --json`
lists every setting with the differing ones marked (checked against a flattening written here); `study list`."""

from __future__ import annotations

import json

import pytest

from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("cells,named", [
    ([{"id": "a", "kind": "nope", "settings": {}}], "unknown run kind 'nope'"),
    ([{"id": "a", "kind": "tfidf-lr", "settings": {"train": "demo", "C": 3}}], "unknown TF-IDF baseline setting(s): C"),
])
def test_bad_study_files_exit_2_with_one_line(tmp_path, capsys, fresh_home, cells, named):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "lm-workbench-study/1", "cells": cells,
                                "columns": [{"name": "a", "metric": "accuracy"}]}, indent=1), encoding="utf-8")
    code, out, err = run_cli(capsys, "study", "run", str(path), "--out", str(tmp_path / "o"))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and named in err and ", line " in err


def test_set_names_only_declared_variables(tmp_path, capsys, fresh_home):
    code, _, err = run_cli(capsys, "study", "run", "why-sbert", "--set", "berty=x", "--estimate")
    assert code == 2 and "no variable 'berty'" in err


def test_a_sweep_over_the_limit_exits_2_without_yes(tmp_path, capsys, fresh_home):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"format": "lm-workbench-study/1", "columns": [{"name": "a", "metric": "accuracy"}],
                                "sweep": {"kind": "tfidf-lr", "settings": {"train": "demo"},
                                          "grid": {"seed": {"range": [0, 99, 1]}}}}), encoding="utf-8")
    code, _, err = run_cli(capsys, "study", "run", str(path), "--estimate")
    assert code == 2 and "100 cells" in err and "--yes" in err
    code, out, _ = run_cli(capsys, "study", "run", str(path), "--estimate", "--yes", "--json", "--out",
                           str(tmp_path / "o"))
    assert code == 0 and json.loads(out)["to_run"] == 100


def test_study_list_names_the_seven_builtin_studies(capsys, fresh_home):
    code, out, _ = run_cli(capsys, "study", "list", "--json")
    names = {s["name"] for s in json.loads(out)["studies"]}
    assert code == 0 and names == {"four-paradigms", "bigger-is-better", "mlm-vs-left-to-right", "is-nsp-needed",
                                   "why-sbert", "elmo-layers", "what-peft-trains"}
    # the count is what a run at lecture scale would run, sweeps and seeds expanded (it said 0 for a sweep-only study)
    studies = {s["name"]: s for s in json.loads(out)["studies"]}
    for name, study in studies.items():
        code, estimate, _ = run_cli(capsys, "study", "run", name, "--scale", "lecture", "--estimate", "--yes",
                                    "--json", "--out", str(fresh_home / name))
        assert code == 0 and study["cells"] == json.loads(estimate)["cells"], name
    assert studies["what-peft-trains"]["cells"] == 9  # its sweep's nine methods


def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flat(v, key + "."))
        else:
            out[key] = v
    return out


def test_runs_diff_lists_the_settings_that_differ(capsys, fresh_home):
    a = {"model": "minilm", "training": {"lr": 0.001, "steps": 10}, "seed": 0, "only_a": True}
    b = {"model": "minilm", "training": {"lr": 0.003, "steps": 10}, "seed": 1}
    with RunStore(runs_db_path()) as store:
        ia = store.create_run("finetune", name="a", params=a)
        ib = store.create_run("finetune", name="b", params=b)
    code, out, _ = run_cli(capsys, "runs", "diff", str(ia), str(ib), "--json")
    data = json.loads(out)
    fa, fb = flat(a), flat(b)
    want = {k for k in set(fa) | set(fb) if fa.get(k, object()) != fb.get(k, object())}
    assert code == 0 and {r["setting"] for r in data["settings"] if r["differs"]} == want
    assert want == {"training.lr", "seed", "only_a"} and data["differences"] == 3
    code, out, _ = run_cli(capsys, "runs", "diff", str(ia), str(ib))
    lines = [line for line in out.splitlines() if line.startswith("*")]
    assert len(lines) == 3 and any("training.lr" in line and "0.001" in line and "0.003" in line for line in lines)
    code, _, err = run_cli(capsys, "runs", "diff", str(ia), "999")
    assert code == 2 and "no run #999" in err

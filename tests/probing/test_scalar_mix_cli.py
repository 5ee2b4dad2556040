"""``lm-workbench scalar-mix``: the JSON contract on a tiny model, the run it records, bad input."""

from __future__ import annotations

import json

import pytest

from lm_workbench.engine.probing.demo import POS_DEMO
from lm_workbench.cli.main import main

pytestmark = pytest.mark.timeout(120)


def test_scalar_mix_json_and_its_run(capsys, fresh_home, tiny_models, tmp_path):
    text = POS_DEMO.read_text(encoding="utf-8")
    task = tmp_path / "pos.conllu"
    task.write_text("\n\n".join(text.split("\n\n")[:60]) + "\n", encoding="utf-8")
    model = str(tiny_models["bert"])
    code = main(["scalar-mix", model, "--task", str(task), "--kind", "token", "--steps", "40", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    layers = result["layers"]
    assert layers == list(range(len(layers))) and len(result["weights"]) == len(layers) >= 2
    assert sum(result["weights"]) == pytest.approx(1.0, abs=1e-5) and min(result["weights"]) > 0
    assert result["expected_layer"] == pytest.approx(sum(j * w for j, w in enumerate(result["weights"])), abs=1e-5)
    assert result["steps"] == 40 and 0.0 <= result["accuracy"] <= 1.0 and result["labels"] > 2

    code = main(["runs", "list", "--kind", "scalar-mix", "--json"])
    runs = json.loads(capsys.readouterr()[0])["runs"]
    assert [r["id"] for r in runs] == [result["run_id"]] and runs[0]["status"] == "finished"
    assert runs[0]["cli_command"].startswith("lm-workbench scalar-mix")
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        weights = {m["step"]: m["value"] for m in store.metrics(result["run_id"], "weight")}
    assert [weights[layer] for layer in layers] == pytest.approx(result["weights"])


def test_bad_task_is_one_line_and_exit_2(capsys, fresh_home, tmp_path):
    missing = tmp_path / "missing.conllu"
    code = main(["scalar-mix", "no-such-model", "--task", str(missing), "--kind", "token", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "missing.conllu" in err

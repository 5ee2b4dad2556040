"""``course:<family>`` names this machine's course model everywhere a model is named, as lecture presets do
(issue 36: typed in the model box or on the CLI it said "model folder course:bert does not exist")."""

from __future__ import annotations

import json

import pytest

from tests.support.lecture_play import install_course_models
from lm_workbench.cli.main import main

pytestmark = pytest.mark.timeout(60)


def test_the_cli_and_the_model_box_open_course_models_by_family(tiny_models, monkeypatch, tmp_path, capsys,
                                                                 open_window, qtbot):
    home = install_course_models(tiny_models, monkeypatch, tmp_path, families=("bert",))
    assert main(["fill-mask", "course:bert", "--text", "a name is the [MASK]", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"][0] == "[CLS]" and data["masks"][0]["position"] == 5
    assert main(["info", "course:bert", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["folder"] == str(home / "data" / "course-models" / "bert" / "model")
    assert main(["info", "course:gpt2", "--json"]) == 2  # not built here: says how to build it
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "course gpt2 model is not pre-trained" in line and "lm-workbench course-models --families gpt2" in line
    window = open_window("course:bert", "tokens")  # the model box's way: the window's load job
    assert window.loaded.info.folder.startswith(str(home / "data" / "course-models" / "bert"))

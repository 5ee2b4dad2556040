"""Recent models: a run's ``<folder>`` and its ``<folder>/model`` are one entry, the model folder (issue 36 listed
"gpt2/model" and "gpt2" twice); so are every other spelling of one folder (a link to it, a relative path, a trailing
slash: a data folder reached through a link listed the course GPT-2 twice)."""

from __future__ import annotations

import os

import pytest

from lm_workbench.settings import Settings


def test_a_run_folder_and_its_model_folder_are_one_recent_entry(tmp_path):
    run = tmp_path / "gpt2"
    (run / "model").mkdir(parents=True)
    (run / "model" / "config.json").write_text("{}", encoding="utf-8")
    settings = Settings(recent_models=["minilm"])
    settings.add_recent(str(run / "model"))  # what a loaded run reports as its folder
    settings.add_recent(str(run))  # the run folder typed into the box
    assert settings.recent_models == [str(run / "model"), "minilm"]
    plain = tmp_path / "plain"  # a folder with no model/ inside: as given
    plain.mkdir()
    settings.add_recent(str(plain))
    assert settings.recent_models == [str(plain), str(run / "model"), "minilm"]


@pytest.mark.parametrize("spelling", ["link", "relative", "trailing slash", "run folder through a link"])
def test_every_spelling_of_one_folder_is_one_recent_entry(tmp_path, monkeypatch, spelling):
    run = tmp_path / "real" / "gpt2"
    (run / "model").mkdir(parents=True)
    (run / "model" / "config.json").write_text("{}", encoding="utf-8")
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    monkeypatch.chdir(tmp_path / "real")
    other = {"link": str(tmp_path / "linked" / "gpt2" / "model"), "relative": "gpt2/model",
             "trailing slash": str(run / "model") + "/", "run folder through a link": str(tmp_path / "linked" / "gpt2")}
    settings = Settings(recent_models=["minilm"])
    settings.add_recent(str(run / "model"))
    settings.add_recent(other[spelling])
    assert settings.recent_models == [str((run / "model").resolve()), "minilm"]
    assert not settings.offer_recent(other[spelling])  # a course model offered again: already there
    assert os.path.isdir(settings.recent_models[0])

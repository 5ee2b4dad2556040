"""Recent models: a run's ``<folder>`` and its ``<folder>/model`` are one entry, the model folder (issue 36 listed
"gpt2/model" and "gpt2" twice)."""

from __future__ import annotations

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

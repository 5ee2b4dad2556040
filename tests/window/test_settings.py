"""Settings persistence and the folder layout under LM_WORKBENCH_HOME."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from lm_workbench import paths
from lm_workbench.settings import (MAX_RECENT, Settings, load_settings, save_settings,
                                settings_path)


@pytest.fixture(autouse=True)
def home(fresh_home):
    """Every test here gets a private LM_WORKBENCH_HOME."""
    return fresh_home


def test_paths_live_under_home_and_exist(home):
    got = {f.__name__: f() for f in (paths.config_dir, paths.data_dir, paths.cache_dir,
                                      paths.plugins_dir)}
    assert got == {"config_dir": home / "config", "data_dir": home / "data",
                   "cache_dir": home / "cache", "plugins_dir": home / "plugins"}
    assert all(p.is_dir() for p in got.values())
    assert paths.runs_db_path() == home / "data" / "runs.sqlite3"


def test_paths_without_home_use_platformdirs(monkeypatch, tmp_path):
    monkeypatch.delenv("LM_WORKBENCH_HOME")
    monkeypatch.setattr(paths.platformdirs, "user_config_dir",
                        lambda app, appauthor=None: str(tmp_path / "pd" / app))
    assert paths.config_dir() == tmp_path / "pd" / "lm-workbench"
    assert paths.config_dir().is_dir()


def test_missing_file_gives_defaults_without_writing(home):
    assert load_settings() == Settings()
    assert not settings_path().exists()


def test_round_trip(home):
    s = Settings(device="cpu", precision="bfloat16", cpu_threads=3, offline=True,
                 trust_remote_code=True, allow_pickle_weights=True,
                 recent_models=["a", "b"], default_model="gpt2", memory_headroom=0.5)
    path = save_settings(s)
    assert path == home / "config" / "settings.json"
    assert json.loads(path.read_text())["precision"] == "bfloat16"
    assert load_settings() == s
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp left


def test_corrupt_file_is_set_aside_not_lost(home):
    path = settings_path()
    path.write_text("{not json", encoding="utf-8")
    assert load_settings() == Settings()
    assert not path.exists()
    aside = list(path.parent.glob("settings.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == "{not json"
    path.write_text("[1, 2]", encoding="utf-8")  # valid JSON, wrong shape
    assert load_settings() == Settings()
    assert len(list(path.parent.glob("settings.json.corrupt-*"))) == 2


def test_bad_value_falls_back_per_field(home):
    settings_path().write_text(json.dumps({"device": "gpu", "cpu_threads": 4,
                                           "memory_headroom": "lots", "unknown": 1}))
    s = load_settings()
    assert (s.device, s.cpu_threads, s.memory_headroom) == ("auto", 4, 0.9)


def test_add_recent_dedups_and_caps():
    s = Settings()
    for spec in ["a", "b", "c", "a"]:
        s.add_recent(spec)
    assert s.recent_models == ["a", "c", "b"]
    for i in range(20):
        s.add_recent(f"m{i}")
    assert len(s.recent_models) == MAX_RECENT and s.recent_models[0] == "m19"


def test_save_is_atomic(home, monkeypatch):
    save_settings(Settings(default_model="first"))

    def broken_replace(src, dst):
        raise OSError("disk full")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", broken_replace)
        with pytest.raises(OSError):
            save_settings(Settings(default_model="second"))
    assert load_settings().default_model == "first"
    assert [p.name for p in settings_path().parent.iterdir()] == ["settings.json"]


def test_every_field_has_help_and_offline_follows_env(monkeypatch):
    assert all(f.metadata.get("help") for f in dataclasses.fields(Settings))
    from lm_workbench.models.network import apply_offline_mode

    assert Settings().offline is None  # None: the environment decides
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    assert apply_offline_mode(Settings().offline) is False
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert apply_offline_mode(Settings().offline) is True

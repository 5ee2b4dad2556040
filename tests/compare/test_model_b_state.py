"""The Qt-free comparison state: model B's loads by generation, Stop comparing, a run's model folder."""

from __future__ import annotations

from types import SimpleNamespace

from lm_workbench.compare.model_b import ModelB, run_model_folder


def _model(spec):
    return SimpleNamespace(info=SimpleNamespace(spec=spec))


def test_a_newer_load_or_stop_drops_an_older_result():
    state, seen = ModelB(), []
    state.events.model_b_changed.connect(seen.append)
    first = state.begin_load("a")
    second = state.begin_load("b")
    assert state.begin_load("b") is None and state.spec == "b"
    assert not state.finish_load(first, _model("a"))
    b = _model("b")
    assert state.finish_load(second, b) and state.loaded is b and not state.loading and seen == [b]
    third = state.begin_load("c")
    assert state.stop() and state.loaded is None and seen == [b, None]
    assert not state.finish_load(third, _model("c")) and state.loaded is None
    assert not state.stop()


def test_run_model_folder(tmp_path):
    (tmp_path / "pre" / "model").mkdir(parents=True)
    (tmp_path / "pre" / "model" / "config.json").write_text("{}")
    (tmp_path / "ft" / "adapter").mkdir(parents=True)
    (tmp_path / "ft" / "adapter" / "config.json").write_text("{}")
    (tmp_path / "lora" / "adapter").mkdir(parents=True)
    run = lambda kind, out, status="finished": {"kind": kind, "status": status, "params": {"out_dir": str(out)}}  # noqa: E731
    assert run_model_folder(run("pretrain", tmp_path / "pre")) == str(tmp_path / "pre")
    assert run_model_folder(run("finetune", tmp_path / "ft")) == str(tmp_path / "ft" / "adapter")
    assert run_model_folder(run("finetune", tmp_path / "lora")) is None  # an adapter to merge first
    assert run_model_folder(run("pretrain", tmp_path / "pre", "running")) is None
    assert run_model_folder(run("probe", tmp_path / "pre")) is None

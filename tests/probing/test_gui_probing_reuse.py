"""A guide page or lecture step that starts the probing sweep (``"run": true``) reuses the run recorded for the same
model, settings and data: the second visit shows the recorded numbers and records no new run; another task
(other data) is computed and recorded afresh. The Run button still computes a new run."""

from __future__ import annotations

from lm_workbench.engine.probing.demo import POS_DEMO
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views


def _registry() -> ViewRegistry:
    builtin = builtin_views()
    return ViewRegistry([builtin.get("tokens"), builtin.get("probing")])


def _task(tmp_path, name, sentences):
    path = tmp_path / name
    path.write_text("\n\n".join(POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:sentences]) + "\n",
                    encoding="utf-8")
    return str(path)


def test_a_second_visit_reuses_the_recorded_sweep(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    window = open_window(str(tiny_models["bert"]), "probing", registry=_registry())
    view, store = window.view("probing"), window.run_services.store
    page = {"task": _task(tmp_path, "a.conllu", 40), "kind": "token", "probe": True, "sts": False, "mix": False,
            "run": True}

    def visit(settings):
        view.state.probe_run_id = None
        window.view_host.apply_preset_step("probing", settings, {})
        qtbot.waitUntil(lambda: view.state.probe_run_id is not None and view.run_button.isEnabled(), timeout=60000)
        return view.state.probe_run_id, dict(view.state.probe_layers)

    def probe_runs():
        return [r["id"] for r in store.list_runs(kind="probe", recover=False)]

    first, layers = visit(page)
    assert probe_runs() == [first] and "recorded before" not in view.summary.text()
    recorded = {m["step"]: m["value"] for m in store.metrics(first, "selectivity")}
    assert recorded == {k: v[2] for k, v in layers.items()} and sorted(recorded) == [0, 1, 2]

    again, shown = visit(page)  # the page visited again: the same run, nothing new recorded
    assert again == first and probe_runs() == [first]
    assert shown == layers and "recorded before" in view.summary.text()

    other, _ = visit({**page, "task": _task(tmp_path, "b.conllu", 30)})  # other data: computed and recorded
    assert other != first and sorted(probe_runs()) == sorted([first, other])

    view.run()  # the Run button: a fresh run even for settings that ran before
    qtbot.waitUntil(lambda: len(probe_runs()) == 3 and view.run_button.isEnabled(), timeout=60000)


def test_a_scalar_mix_step_visited_again_shows_the_recorded_mix(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    """The ELMo scalar-mix page (``"mix": true, "run": true``): trained and recorded once, then shown again."""
    window = open_window(str(tiny_models["bert"]), "probing", registry=_registry())
    view, store = window.view("probing"), window.run_services.store
    task = _task(tmp_path, "a.conllu", 30)
    page = {"task": task, "kind": "token", "probe": False, "sts": False, "mix": True, "mix_steps": 3, "run": True}

    def visit(settings):
        view.state.mix_run_ids.clear()
        window.view_host.apply_preset_step("probing", settings, {})
        qtbot.waitUntil(lambda: bool(view.state.mix_run_ids) and view.run_button.isEnabled(), timeout=60000)
        (run_id,) = view.state.mix_run_ids.values()
        return run_id, dict(view.state.mixes)

    def mix_runs():
        return sorted(r["id"] for r in store.list_runs(kind="scalar-mix", recover=False))

    first, mixes = visit(page)
    assert mix_runs() == [first] and "recorded before" not in view.summary.text()
    recorded = {m["step"]: m["value"] for m in store.metrics(first, "weight")}
    assert list(mixes.values()) == [[recorded[k] for k in sorted(recorded)]]
    again, shown = visit(page)
    assert again == first and mix_runs() == [first] and shown == mixes and "recorded before" in view.summary.text()
    other, _ = visit({**page, "mix_steps": 4})  # another setting: trained and recorded
    assert other != first and mix_runs() == sorted([first, other])

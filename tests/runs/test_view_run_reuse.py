"""A guide page or lecture step that trains when opened reuses the run recorded for the same computation.

Per kind made reusable (the scalar mix, the tuned lens): the first visit records one run; the second records
nothing and gives the same numbers (checked against what the first run recorded in the store, not against the
record the recall reads); another setting or another model trains again; a tuned lens whose output folder was
deleted (or overwritten by another training) trains again. Tiny models, a few steps."""

from __future__ import annotations

import shutil

import pytest

from lm_workbench.engine.probing.demo import POS_DEMO
from lm_workbench.engine.progress import drive


def _task(tmp_path, sentences: int = 30) -> str:
    path = tmp_path / "pos.conllu"
    path.write_text("\n\n".join(POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:sentences]) + "\n",
                    encoding="utf-8")
    return str(path)


def _runs(store_path, kind):
    from lm_workbench.store import RunStore

    with RunStore(store_path) as store:
        return sorted(r["id"] for r in store.list_runs(kind=kind, recover=False))


def _metric(store_path, run_id, name):
    from lm_workbench.store import RunStore

    with RunStore(store_path) as store:
        return {m["step"]: m["value"] for m in store.metrics(run_id, name)}


@pytest.fixture(scope="module")
def loaded_models(tiny_models):
    from lm_workbench.models.loader import load_model

    return {kind: load_model(str(tiny_models[kind])) for kind in ("bert", "gpt2")}


def test_a_scalar_mix_visited_again_is_recalled(loaded_models, fresh_home, tmp_path):
    from lm_workbench.probing.scalar_mix_runs import KIND, ScalarMixRun
    from lm_workbench.probing.spec import ScalarMixSpec
    from lm_workbench.runs.execute import execute

    task, store_path = _task(tmp_path), tmp_path / "runs.db"

    def visit(model: str, steps: int = 4):
        loaded = loaded_models[model]
        spec = ScalarMixSpec(model=loaded.info.spec, task=task, kind="token", steps=steps).checked()
        return drive(execute(ScalarMixRun(spec), loaded, store_path, reuse=True))

    first, first_id = visit("bert")
    assert _runs(store_path, KIND) == [first_id] and getattr(first, "reused_run", None) is None
    again, again_id = visit("bert")  # the page visited again: nothing trained, nothing recorded
    assert again_id == first_id and again.reused_run == first_id and _runs(store_path, KIND) == [first_id]
    recorded = _metric(store_path, first_id, "weight")  # what the first run logged, layer by layer
    assert again.result.weights == [recorded[k] for k in again.layers] == first.result.weights
    assert again.result.expected_layer == pytest.approx(sum(j * w for j, w in enumerate(again.result.weights)))
    for name in ("gamma", "accuracy", "expected_layer", "validation_loss", "steps", "curve"):
        assert getattr(again.result, name) == getattr(first.result, name), name
    assert (again.kind, again.layers, again.labels) == (first.kind, first.layers, first.labels)

    changed = [visit("bert", steps=5)[1], visit("gpt2")[1]]  # another setting, another model: trained again
    assert len(set(changed) | {first_id}) == 3 and _runs(store_path, KIND) == sorted([first_id, *changed])

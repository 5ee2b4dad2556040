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


# the tuned lens: each visit in turn, (what happens before it, the model, its steps, whether it trains)
VISITS = [
    ("first visit", None, "gpt2", 6, True),
    ("visited again", None, "gpt2", 6, False),
    ("another setting (it overwrites the folder)", None, "gpt2", 7, True),
    ("the first settings again: their folder holds the other run's now", None, "gpt2", 6, True),
    ("again: reused", None, "gpt2", 6, False),
    ("the output folder deleted", "delete", "gpt2", 6, True),
    ("another corpus (its hash is in the key)", "other corpus", "gpt2", 6, True),
    ("another model", None, "llama", 6, True),
    ("the Train button: trains even when a run is recorded", "button", "llama", 6, True),
    ("a page after the button: reuses the button's run", None, "llama", 6, False),
]


def test_a_tuned_lens_visited_again_is_loaded_not_trained(tiny_models, fresh_home, tmp_path):
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.lens.runs import KIND, window_job
    from lm_workbench.lens.spec import TunedLensSpec
    from lm_workbench.models.loader import load_model
    from tests.support.tuned_lens_reference import corpus_file

    corpus, store_path, loaded = corpus_file(tmp_path, lines=120), tmp_path / "runs.db", {}
    for name in ("gpt2", "llama"):
        shutil.copytree(tiny_models[name], tmp_path / name)  # a training writes <model>/tuned_lens
        loaded[name] = load_model(str(tmp_path / name))
    summaries: dict[tuple[str, int], dict] = {}
    for label, before, model, steps, trains in VISITS:
        if before == "delete":
            shutil.rmtree(tmp_path / model / "tuned_lens")
        if before == "other corpus":  # the same file name, other text
            corpus.write_text(corpus.read_text(encoding="utf-8").replace("the", "a"), encoding="utf-8")
        runs_before = _runs(store_path, KIND)
        spec = TunedLensSpec(model=loaded[model].info.spec, corpus=[str(corpus)],
                             settings={"steps": steps, "batch_size": 2, "seq_len": 16, "validation_windows": 4})
        job = window_job(spec.checked(), loaded[model], store_path, reuse=before != "button")
        summary = drive(job(NEVER_CANCELLED))
        runs_after = _runs(store_path, KIND)
        translators = tmp_path / model / "tuned_lens" / "translators.safetensors"
        assert translators.is_file(), label
        if trains:
            assert runs_after == runs_before + [summary["run_id"]] and "reused_run" not in summary, label
            summaries[(model, steps)] = summary
            continue
        assert runs_after == runs_before and summary["reused_run"] == summary["run_id"], label
        trained = summaries[(model, steps)]
        assert summary["run_id"] == trained["run_id"] and summary["kl"] == trained["kl"], label
        recorded = _metric(store_path, summary["run_id"], "mean_kl_tuned")  # what that run logged
        assert list(recorded.values()) == [summary["mean_kl"]["tuned_after"]], label
        assert summary["out_dir"] == str(translators.parent), label


def test_a_tuned_lens_in_the_models_folder_leaves_its_fingerprint_alone(tiny_models, tmp_path):
    from lm_workbench.lens.files import FOLDER
    from lm_workbench.runs.provenance import BESIDE_THE_MODEL, fingerprint_model_folder

    folder = tmp_path / "gpt2"
    shutil.copytree(tiny_models["gpt2"], folder)
    before = fingerprint_model_folder(folder)
    (folder / FOLDER).mkdir()
    shutil.copy(folder / "model.safetensors", folder / FOLDER / "translators.safetensors")
    assert FOLDER in BESIDE_THE_MODEL and fingerprint_model_folder(folder) == before
    shutil.copy(folder / "model.safetensors", folder / "extra.safetensors")  # the model's own weights: they count
    assert fingerprint_model_folder(folder) != before

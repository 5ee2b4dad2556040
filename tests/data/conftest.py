"""A local ``datasets`` cache made by the real library (skipped where the optional package is absent)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.data.published_shapes import SST2_ROWS as SST2, STSB_ROWS as STSB


def _prepare(cache, tmp_path, config, rows, features):
    from datasets.packaged_modules.json.json import Json

    source = tmp_path / f"{config}.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    Json(cache_dir=str(cache), dataset_name="glue", config_name=config, hash="0123456789abcdef",
         data_files={"validation": str(source)}, features=features).download_and_prepare()
    (made,) = (cache / "glue").glob(f"{config}-*")  # a hub download names the folder by its config alone
    target = cache / "nyu-mll___glue" / config
    target.parent.mkdir(exist_ok=True)
    shutil.move(str(made), str(target))
    for info in target.glob("*/*/dataset_info.json"):
        meta = json.loads(info.read_text(encoding="utf-8"))
        info.write_text(json.dumps({**meta, "config_name": config}), encoding="utf-8")


@pytest.fixture(scope="session")
def glue_cache(tmp_path_factory):
    pytest.importorskip("datasets")
    from datasets import ClassLabel, Features, Value

    cache = tmp_path_factory.mktemp("hf-datasets")
    work = tmp_path_factory.mktemp("sources")
    _prepare(cache, work, "sst2", [{"sentence": s, "label": y, "idx": i} for i, (s, y) in enumerate(SST2)],
             Features({"sentence": Value("string"), "label": ClassLabel(names=["negative", "positive"]),
                       "idx": Value("int32")}))
    _prepare(cache, work, "stsb", [{"sentence1": a, "sentence2": b, "label": s, "idx": i}
                                   for i, (a, b, s) in enumerate(STSB)],
             Features({"sentence1": Value("string"), "sentence2": Value("string"), "label": Value("float32"),
                       "idx": Value("int32")}))
    shutil.rmtree(cache / "glue", ignore_errors=True)
    return cache


@pytest.fixture
def in_cache(glue_cache, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(glue_cache))
    return glue_cache

"""Resolving what the user typed: default, folder, HF cache, hub id."""

from __future__ import annotations

import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.errors import ModelNotFoundError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.models.sources import looks_like_path, resolve_model
from tests.support.hub_cache import fake_hub_cache
from tests.support.reference import max_abs, plain_forward


@pytest.mark.parametrize("spec, is_path", [
    ("./model", True), ("/abs/model", True), ("~/model", True), ("a/b/c", True), ("C:\\models\\x", True),
    ("bert-base-uncased", False), ("sentence-transformers/all-MiniLM-L6-v2", False), ("org/name", False),
    ("has space/name", True),
])
def test_path_or_hub_id(spec, is_path):
    assert looks_like_path(spec) is is_path


def test_cached_hub_id_loads_offline(tiny_models, tmp_path, monkeypatch):
    from huggingface_hub import constants

    cache = tmp_path / "hf-cache"
    snapshot = fake_hub_cache(cache, "tiny-org/tiny-gpt2", tiny_models["gpt2"])
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    source = resolve_model("tiny-org/tiny-gpt2")
    assert source.kind == "cache" and source.folder == snapshot
    loaded = load_model("tiny-org/tiny-gpt2")
    assert loaded.info.source == "cache" and loaded.info.family == "decoder"
    ours = encode(loaded, "Cached models load without a network.")
    ref = plain_forward(snapshot, "Cached models load without a network.")
    assert max_abs(ours.hidden_states, ref["hidden_states"]) <= 1e-5
    with pytest.raises(ModelNotFoundError, match=str(cache).replace("\\", "\\\\")):
        resolve_model("tiny-org/other-model")


def test_default_model_names():
    assert resolve_model("minilm").kind == "default"
    assert resolve_model("MiniLM").folder == resolve_model("default").folder
    with pytest.raises(ModelNotFoundError, match="no model given"):
        resolve_model("  ")


def test_unreachable_hub_fails_fast_when_not_offline(monkeypatch):
    """With offline mode off but no route to the hub, an uncached id fails at once, saying why."""
    import time

    from lm_workbench.engine.models import sources

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    monkeypatch.setattr(sources, "_hub_reachable", lambda timeout=2.0: False)
    start = time.monotonic()
    with pytest.raises(ModelNotFoundError, match="the hub cannot be reached"):
        resolve_model("some-org/never-cached")
    assert time.monotonic() - start < 5.0

"""The tiny models the Heads tests read, loaded once for the folder (none of these tests changes them)."""

from __future__ import annotations

import pytest

from lm_workbench.engine.models.loading import load_source as load_model


@pytest.fixture(scope="session")
def heads_gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


@pytest.fixture(scope="session")
def heads_bert(tiny_models):
    return load_model(str(tiny_models["bert"]))

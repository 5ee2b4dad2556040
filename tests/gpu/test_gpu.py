"""CUDA paths (skipped without a GPU): parity on CUDA and bf16 top-k agreement."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.reference import max_abs, plain_forward

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]

TEXT = "The bank raised its rates while we sat by the river."


@pytest.mark.parametrize("kind", ["minilm", "gpt2", "t5"])
def test_cuda_float32_matches_cpu_reference(kind, tiny_models):
    spec = kind if kind == "minilm" else str(tiny_models[kind])
    loaded = load_model(spec, device="cuda", precision="float32")
    assert loaded.info.device.startswith("cuda")
    target = "A target." if loaded.info.family == "encoder-decoder" else None
    ours = encode(loaded, TEXT, target=target)
    ref = plain_forward(loaded.info.folder, TEXT, None, target)
    assert max_abs(ours.hidden_states, ref["hidden_states"]) <= 1e-4
    assert max_abs(ours.attentions, ref["attentions"]) <= 1e-4


def test_bf16_top_k_agrees_with_float32(tiny_models):
    folder = str(tiny_models["gpt2"])
    ref = load_model(folder, device="cuda", precision="float32")
    half = load_model(folder, device="cuda", precision="bfloat16")
    assert half.info.dtype == "bfloat16"
    ids = torch.tensor([ref.tokenizer(TEXT)["input_ids"]], device="cuda")
    with torch.no_grad():
        a = ref.model(ids).logits[0].float().cpu().numpy()
        b = half.model(ids).logits[0].float().cpu().numpy()
    k = 5
    overlap = [len(set(np.argsort(-x)[:k]) & set(np.argsort(-y)[:k])) / k for x, y in zip(a, b)]
    assert float(np.mean(overlap)) >= 0.8

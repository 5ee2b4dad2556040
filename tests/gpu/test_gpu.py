"""CUDA paths (skipped without a GPU): parity on CUDA and bf16 top-k agreement; the defaults pick the GPU and bf16;
pre-training and fine-tuning through the public API train there and record their runs. ``scripts/gpu-checks.sh``
runs these with the MFU benchmark on a machine that has one."""

from __future__ import annotations

import math

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


def test_the_defaults_pick_the_gpu_and_bf16(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))  # device and precision "auto", as the window and the CLI load
    assert loaded.info.device.startswith("cuda")
    assert loaded.info.dtype == ("bfloat16" if torch.cuda.is_bf16_supported() else "float16")


def test_pretraining_through_the_api_trains_on_the_gpu_in_bf16(tmp_path):
    import lm_workbench as lw
    from tests.support.tiny_models import corpus_lines

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(corpus_lines(400)), encoding="utf-8")
    run = lw.pretrain(family="gpt2", objective="clm", corpus=[str(corpus)], out=str(tmp_path / "run"), steps=8,
                      batch_size=8, vocab_size=1000, seq_len=64, device="cuda", train=("precision=bf16",))
    assert run["device"].startswith("cuda") and run["precision"] == "bf16" and run["speed"]["bf16"] is True
    assert math.isfinite(run["final_loss"]) and math.isfinite(run["validation_loss"])
    losses = run.curves()["loss"].dropna()  # the run store's curve, as the Runs tab draws it
    assert losses.index[-1] == 8 and losses.iloc[-1] == pytest.approx(run["final_loss"])


def test_fine_tuning_through_the_api_uses_the_gpu_when_present(tiny_models, tmp_path):
    import lm_workbench as lw
    from lm_workbench.engine.finetune.demo import demo_path

    run = lw.finetune(model=str(tiny_models["bert"]), task="seq-cls", train=str(demo_path("seq-cls")),
                      method="lora", out=str(tmp_path / "ft"), epochs=1)
    assert run["device"].startswith("cuda")
    assert math.isfinite(run["final_loss"]) and run.run_id is not None

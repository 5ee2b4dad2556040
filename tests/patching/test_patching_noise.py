"""ROME's corruption (noise on the subject's word embeddings) checked against a noised run built here from the
paper's recipe with plain torch: σ the std of the embedding matrix, ν = 3σ, draws from a seeded generator,
the metric the mean over the draws, one restored cell through a plain forward hook; the CLI's --subject."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.tracing import patching_job
from lm_workbench.engine.progress import run_to_completion
from tests.support.patching_rounding import effect_tolerance
from lm_workbench.cli.main import main

CLEAN = "The name of the"  # 4 tokens for the tiny GPT-2: The, Ġname, Ġof, Ġthe
SAMPLES, SEED = 4, 3


def _noised_inputs(model, ids: list[int], positions: list[int]) -> torch.Tensor:
    """[SAMPLES, T, H]: the word embeddings of ``ids`` with N(0, (3σ)²) added at ``positions``, the paper's way."""
    table = model.get_input_embeddings().weight.detach()
    nu = 3.0 * float(table.double().std())
    clean = table[torch.tensor(ids)].unsqueeze(0)
    noise = torch.randn(SAMPLES, len(positions), clean.shape[-1], generator=torch.Generator().manual_seed(SEED)) * nu
    out = clean.repeat(SAMPLES, 1, 1)
    out[:, positions] += noise
    return out


def _mean_metric(model, embeds, answer: int, wrong: int, module=None, position=None, value=None) -> float:
    def hook(_m, _inputs, output):
        first = (output[0] if isinstance(output, tuple) else output).clone()
        first[:, position] = value
        return (first, *output[1:]) if isinstance(output, tuple) else first

    handle = module.register_forward_hook(hook) if module is not None else None
    try:
        with torch.no_grad():
            logits = model(inputs_embeds=embeds).logits[:, -1].double()
    finally:
        if handle is not None:
            handle.remove()
    return float((logits[:, answer] - logits[:, wrong]).mean())


def test_noise_on_the_subject_against_the_papers_recipe(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))
    result = run_to_completion(patching_job(loaded, CLEAN, None, "Ġlist", "Ġclass", "mlp", subject="name",
                                              samples=SAMPLES, seed=SEED))
    model, tok = loaded.model, loaded.tokenizer
    ids = tok(CLEAN)["input_ids"]
    assert result.noise.positions == [1] and result.corrupt_tokens == result.tokens  # the subject's one token
    assert result.noise.sigma == pytest.approx(float(model.get_input_embeddings().weight.double().std()))
    vocab = tok.get_vocab()
    answer, wrong = vocab["Ġlist"], vocab["Ġclass"]
    embeds = _noised_inputs(model, ids, [1])
    assert result.corrupt_metric == pytest.approx(_mean_metric(model, embeds, answer, wrong), abs=1e-5)
    assert result.corrupt_metric != pytest.approx(result.clean_metric, abs=1e-3)

    layer, position = 0, 1  # restore layer 0's MLP output at the subject in every draw
    module = model.transformer.h[layer].mlp
    kept = {}
    handle = module.register_forward_hook(lambda _m, _i, out: kept.setdefault("clean", out[0].detach().clone()))
    with torch.no_grad():
        model(input_ids=torch.tensor([ids]))
    handle.remove()
    patched = _mean_metric(model, embeds, answer, wrong, module, position, kept["clean"][position])
    expected = (patched - result.corrupt_metric) / (result.clean_metric - result.corrupt_metric)
    tolerance = effect_tolerance(result.clean_metric, result.corrupt_metric)
    assert result.effect[layer][position] == pytest.approx(expected, abs=tolerance)
    # before the subject nothing was noised: restoring it changes nothing but rounding (the clean value restored
    # was computed in the reference pass, a batch of another shape)
    assert result.effect[layer][0] == pytest.approx(0.0, abs=tolerance)
    assert result.to_dict()["noise"]["positions"] == [1]


def test_zero_noise_recovers_nothing_and_bad_requests_say_why(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))
    zero = run_to_completion(patching_job(loaded, CLEAN, None, "Ġlist", subject="name", noise_scale=0.0,
                                            samples=2))
    assert zero.corrupt_metric == pytest.approx(zero.clean_metric) and "nothing to recover" in zero.note
    # noise at rounding level: the two metrics differ by float32 rounding only, which is no signal to divide by
    faint = run_to_completion(patching_job(loaded, CLEAN, None, "Ġlist", subject="name", noise_scale=1e-9,
                                             samples=2))
    assert faint.note is not None and faint.effect == [[0.0] * 4, [0.0] * 4]
    for corrupt, subject, match in ((None, None, "neither"), ("The value of the", "name", "both"),
                                    (None, "Paris", "not in the clean text")):
        with pytest.raises(WorkbenchError, match=match):
            run_to_completion(patching_job(loaded, CLEAN, corrupt, "Ġlist", subject=subject))


def test_cli_patch_with_a_subject(tiny_models, capsys):
    folder = str(tiny_models["gpt2"])
    code = main(["patch", folder, "--clean", CLEAN, "--subject", "name of", "--answer", "Ġlist",
                 "--noise-samples", "3", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["noise"]["positions"] == [1, 2] and out["noise"]["samples"] == 3
    assert len(out["effect"]) == 2 and all(len(row) == 4 for row in out["effect"])
    assert {"site", "layers", "tokens", "clean_metric", "corrupt_metric", "effect"} <= set(out)
    code = main(["patch", folder, "--clean", CLEAN, "--answer", "Ġlist", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "neither" in err and len(err.strip().splitlines()) == 1

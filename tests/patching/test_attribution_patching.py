"""Attribution patching checked against (clean − corrupt) · ∂metric/∂activation computed here with plain torch
hooks and autograd on the tiny GPT-2, and the CLI's ``patch --approx`` / ``--compare-exact`` JSON."""

from __future__ import annotations

import json
import math

import pytest
import torch

from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.attribution_patching import attribution_patch
from lm_workbench.engine.patching.comparison import compare
from tests.support.attribution_patching_reference import ANSWER, CLEAN, CORRUPT, WRONG, by_hand
from lm_workbench.cli.main import main

KEYS = {"site", "layers", "tokens", "clean_metric", "corrupt_metric", "effect"}


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


def test_every_site_equals_the_gradient_times_difference_computed_here(gpt2):
    results = attribution_patch(gpt2, CLEAN, CORRUPT, ANSWER, WRONG)
    assert set(results) == {"resid", "attn", "mlp"}
    for site, result in results.items():
        expected, clean_metric, corrupt_metric = by_hand(gpt2.model, gpt2.tokenizer, site)
        assert result.clean_metric == pytest.approx(clean_metric, abs=1e-5)
        assert result.corrupt_metric == pytest.approx(corrupt_metric, abs=1e-5)
        got = torch.tensor(result.effect, dtype=torch.float64)
        assert got.shape == (2, 4)
        # the normalised cells (divided by the same clean − corrupt, a few thousandths of a logit here) to 1e-4
        assert torch.allclose(got, torch.stack(expected), atol=1e-4, rtol=0), site
        assert got.abs().max() > 0.1  # not trivially zero
        # the first token is the same in both texts: its activations are equal, so its cells are 0
        assert all(row[0] == 0.0 for row in result.effect)


def test_pearson_and_disagreements_by_hand():
    approx = [[0.0, 1.0], [2.0, 3.0]]
    exact = [[0.0, 1.0], [2.0, 7.0]]
    comparison = compare(approx, exact, ["a", "b"])
    xs, ys = [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 7.0]
    mx, my = sum(xs) / 4, sum(ys) / 4
    r = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(
        sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    assert comparison.pearson == pytest.approx(r)
    first = comparison.disagreements[0]
    assert (first.layer, first.position, first.token, first.difference) == (1, 1, "b", -4.0)
    assert compare([[1.0, 1.0]], [[0.0, 2.0]], ["a", "b"]).pearson is None  # no spread: undefined


def test_cli_approx_and_compare_exact(tiny_models, gpt2, capsys):
    folder = str(tiny_models["gpt2"])
    base = ["patch", folder, "--clean", CLEAN, "--corrupt", CORRUPT, "--answer", ANSWER, "--wrong", WRONG,
            "--site", "attn", "--json"]
    assert main(base + ["--approx"]) == 0
    approx = json.loads(capsys.readouterr().out)
    assert KEYS <= set(approx) and approx["method"] == "attribution" and approx["site"] == "attn"
    expected, _, _ = by_hand(gpt2.model, gpt2.tokenizer, "attn")
    assert torch.allclose(torch.tensor(approx["effect"], dtype=torch.float64), torch.stack(expected), atol=1e-4)
    assert main(base) == 0
    exact = json.loads(capsys.readouterr().out)
    assert "method" not in exact and set(exact) == KEYS | ({"note", "weak_contrast"} & set(exact))
    assert main(base + ["--compare-exact"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert both["method"] == "attribution" and both["exact"]["effect"] == exact["effect"]
    flat_a = [v for row in both["effect"] for v in row]
    flat_e = [v for row in exact["effect"] for v in row]
    assert both["pearson"] == pytest.approx(float(torch.corrcoef(torch.tensor([flat_a, flat_e]))[0, 1]), abs=1e-6)
    assert len(both["disagreements"]) == 5
    worst = max(abs(a - e) for a, e in zip(flat_a, flat_e))
    assert abs(both["disagreements"][0]["difference"]) == pytest.approx(worst)

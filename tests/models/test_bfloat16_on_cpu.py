"""bfloat16 on a CPU: offered in the model panel and by ``--precision``; the weights take half the memory and
the views still compute probabilities in float32 (finite, summing to 1)."""

from __future__ import annotations

import json

import numpy as np
import torch

from lm_workbench.engine.lens.logit import logit_lens
from lm_workbench.engine.predictions import fill_mask
from lm_workbench.cli.main import main


def test_the_cli_loads_bfloat16_on_the_cpu(tiny_models, capsys):
    code = main(["info", str(tiny_models["bert"]), "--device", "cpu", "--precision", "bfloat16", "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["dtype"] == "bfloat16" and info["device"] == "cpu"
    code = main(["info", str(tiny_models["bert"]), "--device", "cpu", "--precision", "float32", "--json"])
    full = json.loads(capsys.readouterr().out)
    assert full["memory_bytes"] == 2 * info["memory_bytes"]  # the estimate: 2 bytes a weight against 4


def test_the_model_panel_reloads_in_bfloat16_and_the_views_stay_float32(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["bert"]))
    combo = window.model_panel.precision_combo
    assert [combo.itemData(i) for i in range(combo.count())] == ["auto", "float32", "bfloat16", "float16"]
    assert window.loaded.info.dtype == "float32"
    combo.setCurrentIndex(combo.findData("bfloat16"))
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.info.dtype == "bfloat16", timeout=30000)
    assert window.settings.precision == "bfloat16"
    loaded = window.loaded
    assert all(p.dtype == torch.bfloat16 for p in loaded.model.parameters())
    assert "bfloat16" in window.model_panel._values["dtype"].text()
    table = logit_lens(loaded, "The cat sat on the mat.", k=3)
    probs = np.array([[c.prob for c in row[0:1]] for row in table.top[-1]])
    assert np.isfinite(probs).all() and (probs > 0).all()
    _tokens, masks = fill_mask(loaded, f"The cat sat on the {loaded.tokenizer.mask_token}.", k=5)
    shown = [c.prob for c in masks[0].candidates]
    assert np.isfinite(shown).all() and shown == sorted(shown, reverse=True) and 0 < sum(shown) <= 1 + 1e-6

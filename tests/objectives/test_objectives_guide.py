"""The guide's example objective, laid out as the guide says, runs through the workbench on a tiny model.

The code and the plugin.json are taken from docs/writing-an-objective.md
itself, so the guide cannot drift from the API.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import IGNORE_INDEX, LossContext
from tests.support.objective_helpers import tokenizer_for
from lm_workbench.extensions.discovery import discover
from lm_workbench.extensions.registry import ObjectiveRegistry
from lm_workbench.settings import Settings

GUIDE = Path(__file__).parents[2] / "docs" / "writing-an-objective.md"
TEXTS = ["The bank raised its rates. Savers were pleased.", "We sat by the river bank and watched the boats."]


def guide_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture
def guide_plugin(tmp_path) -> tuple[Path, dict]:
    """The example as a folder plugin: the guide's python block and its plugin.json."""
    (code,) = [b for b in guide_blocks("python") if "class SimpleMask(Objective)" in b]
    (manifest_text,) = [b for b in guide_blocks("json") if '"module"' in b]
    manifest = json.loads(manifest_text)
    folder = tmp_path / "plugins" / "simple-mask"
    folder.mkdir(parents=True)
    (folder / "plugin.json").write_text(manifest_text, encoding="utf-8")
    (folder / manifest["module"]).write_text(code, encoding="utf-8")
    return folder.parent, manifest


def test_the_guides_example_trains_through_the_registry(guide_plugin, tiny_models):
    from transformers import BertForMaskedLM

    root, manifest = guide_plugin
    name = manifest["name"]
    assert ObjectiveRegistry(discover(Settings(), root)).record(name).status == "disabled"
    registry = ObjectiveRegistry(discover(Settings(enabled_plugins=[name]), root))
    record = registry.record(name)
    assert (record.status, record.kind, record.source, record.api_version) == ("ok", "objective", "folder", "3.3")

    tok = tokenizer_for(tiny_models, "bert")
    objective = registry.objective(name)
    config = objective.default_config()
    config.rate = 0.5
    objective.check_requirements(tok, {"family": "encoder", "has_mlm_head": True}, config)
    batch = registry.make_batch(name, tok(TEXTS)["input_ids"], tok, np.random.default_rng(0), config)
    content = batch.inputs["attention_mask"].bool() & ~torch.isin(batch.labels, torch.tensor([IGNORE_INDEX]))
    masked = batch.inputs["input_ids"] == tok.mask_token_id
    assert torch.equal(masked, content) and bool(masked.any())  # every selected token became the mask token

    torch.manual_seed(0)
    model = BertForMaskedLM.from_pretrained(str(tiny_models["bert"])).eval()
    loss, metrics = registry.loss(name, model, batch, LossContext(config))
    with torch.no_grad():
        logits = model(**batch.inputs).logits
    scored = batch.labels != IGNORE_INDEX
    expected = F.cross_entropy(logits[scored], batch.labels[scored])
    value = float(loss.detach())
    assert value == pytest.approx(float(expected), rel=1e-5) and metrics["loss"] == pytest.approx(value)
    loss.backward()
    assert any(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in model.parameters())

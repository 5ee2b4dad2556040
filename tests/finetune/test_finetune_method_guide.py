"""The guide's example method, laid out as docs/writing-a-finetune-method.md says, works through the registry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch

from tests.support.finetune_method_models import HIDDEN, LABELS, LAYERS, outputs_of, task_batch, task_model, train_a_little
from lm_workbench.finetune.methods import finetune_methods
from lm_workbench.extensions.discovery import discover
from lm_workbench.extensions.registry import FineTuneMethodRegistry
from lm_workbench.settings import Settings

torch.set_num_threads(1)
GUIDE = Path(__file__).parents[2] / "docs" / "writing-a-finetune-method.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


def _folder_plugin(root: Path, code: str, manifest_text: str) -> str:
    manifest = json.loads(manifest_text)
    folder = root / manifest["name"]
    folder.mkdir(parents=True)
    (folder / "plugin.json").write_text(manifest_text, encoding="utf-8")
    (folder / manifest["module"]).write_text(code, encoding="utf-8")
    return manifest["name"]


def test_the_guides_example_trains_saves_and_reloads(tmp_path):
    (code,) = [b for b in _blocks("python") if "class LayerNormTuning(FineTuneMethod)" in b]
    (manifest_text,) = [b for b in _blocks("json") if '"finetune-method"' in b]
    name = _folder_plugin(tmp_path / "plugins", code, manifest_text)
    assert name not in finetune_methods(Settings())  # a folder plugin is off until enabled
    registry = FineTuneMethodRegistry(discover(Settings(enabled_plugins=[name]), tmp_path / "plugins"))
    record = registry.record(name)
    assert (record.status, record.kind, record.source) == ("ok", "finetune-method", "folder"), record.error

    method = registry.method(name)
    model = method.apply(task_model("bert", "seq-cls"), method.default_config(), "seq-cls")
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == (1 + 2 * LAYERS) * 2 * HIDDEN + HIDDEN * LABELS + LABELS
    tuned = train_a_little(model, "seq-cls")
    method.save(tuned, tmp_path / "saved")
    inputs, _ = task_batch("seq-cls", seed=5)
    reloaded = method.load(task_model("bert", "seq-cls", head_seed=9), tmp_path / "saved")
    assert torch.equal(outputs_of(reloaded, "seq-cls", inputs)[0], outputs_of(tuned, "seq-cls", inputs)[0])


def test_a_method_with_bad_declarations_is_listed_with_the_reason(tmp_path):
    (code,) = [b for b in _blocks("python") if "class LayerNormTuning(FineTuneMethod)" in b]
    (manifest_text,) = [b for b in _blocks("json") if '"finetune-method"' in b]
    bad = code.replace('tasks = frozenset({"seq-cls", "token-cls", "qa"})', 'tasks = frozenset({"translation"})')
    name = _folder_plugin(tmp_path / "plugins", bad, manifest_text)
    record = FineTuneMethodRegistry(discover(Settings(enabled_plugins=[name]), tmp_path / "plugins")).record(name)
    assert record.status == "error" and "tasks must be a non-empty set of seq-cls" in record.error

"""A finished fine-tuning run's model, rebuilt from its output folder (for the before/after comparison).

The folder's ``finetune.json`` names the task and the labels; the base task
model is built from the base model's folder (``build_task_model``),
and the method puts what it saved (``adapter/``) onto it. ``save_merged``
folds a mergeable method (LoRA) into the weights and writes a plain
``transformers`` folder the other views can open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from torch import nn

from engine.errors import WorkbenchError
from engine.finetune.task_model import build_task_model


def read_run_record(out_dir: str | Path) -> dict[str, Any]:
    path = Path(out_dir) / "finetune.json"
    if not path.is_file():
        raise WorkbenchError(f"{out_dir} is not a finished fine-tuning run (no finetune.json)")
    return json.loads(path.read_text(encoding="utf-8"))


def load_tuned(method: Any, base_folder: str | Path, out_dir: str | Path) -> nn.Module:
    """The run's tuned model: ``method.load`` of ``out_dir/adapter`` onto a fresh base task model."""
    record = read_run_record(out_dir)
    base = build_task_model(base_folder, record["task"], list(record.get("labels") or []))
    model = method.load(base, Path(out_dir) / "adapter")
    model.eval()
    return model


def save_merged(method: Any, tuned: nn.Module, tokenizer: Any, folder: str | Path) -> Path:
    """Merge ``tuned`` into plain weights (``method.merge``) and save it with ``tokenizer`` to ``folder``."""
    if not getattr(method, "can_merge", False):
        raise WorkbenchError(f"{method.name} cannot be merged into the base weights")
    folder = Path(folder)
    merged = method.merge(tuned)
    merged.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder

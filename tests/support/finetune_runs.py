"""Small fine-tuning runs for the resume and torchrun tests: a tiny BERT base, sentiment files, a spec.

The base is ``tests.support.tiny_models``' BERT (2 layers, 32 wide, WordPiece trained on Python's own
docs); ``without_dropout`` copies it with every dropout at 0 (data-parallel ranks draw other dropout
masks than one process would, so only a dropout-free model can match exactly).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.finetune.spec import FineTuneSpec

TRAIN_EXAMPLES, VALIDATION_EXAMPLES = 48, 16


def sentiment_files(folder: Path) -> tuple[Path, Path]:
    """(train, validation) TSVs cut from the shipped sentiment demo."""
    lines = demo_path("seq-cls").read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    folder.mkdir(parents=True, exist_ok=True)
    train, validation = folder / "train.tsv", folder / "validation.tsv"
    train.write_text("\n".join([header] + rows[:TRAIN_EXAMPLES]) + "\n", encoding="utf-8")
    validation.write_text("\n".join([header] + rows[300:300 + VALIDATION_EXAMPLES]) + "\n", encoding="utf-8")
    return train, validation


def without_dropout(base: Path, folder: Path) -> Path:
    """A copy of the model folder ``base`` whose config turns every dropout off."""
    shutil.copytree(base, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, classifier_dropout=0.0)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def lora_spec(base: Path, data: tuple[Path, Path], out: Path, *, batch_size: int = 8, epochs: float = 2,
              lora_dropout: float = 0.1, **training: object) -> FineTuneSpec:
    """LoRA rank 4 on sequence classification, one CPU thread, a checkpoint every 2 steps."""
    return FineTuneSpec(model=str(base), task="seq-cls", train=str(data[0]), validation=str(data[1]), method="lora",
                        out_dir=str(out), method_config={"rank": "4", "dropout": str(lora_dropout)}, epochs=epochs,
                        batch_size=batch_size, max_length=24, seed=3,
                        training={"threads": 1, "checkpoint_every": 2, **training})

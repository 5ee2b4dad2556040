"""One fine-tuning run in this process: ``run_finetune(spec, cancel=..., report=...)``.

The same function serves the long-run job (in its child process) and ``lm-workbench finetune``.
In order: ``preflight`` checks everything cheap (the spec, the files and their columns, the method,
its settings and tasks, the base model's fitness for the task) so mistakes fail in a second and
leave no failed run behind; then the base is loaded as the task's model (head seeded by the spec's
seed), the method applied and trained by the one loop (``engine.finetune.job``), and the output
folder written (``workbench.finetune.outputs``). Training checkpoints go to a hidden folder inside
``out_dir`` that is removed at the end: a fine-tuning run is short and is not resumed.

``open_output(folder)`` reloads a finished run's model for ``predict``; ``merge_output`` folds a
LoRA run into the base weights as a new output folder whose method is ``full``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from engine.errors import WorkbenchError
from engine.progress import NEVER_CANCELLED, drive
from workbench.finetune.spec import FineTuneSpec


@dataclass
class Preflight:
    method: Any
    method_config: Any
    base_folder: Path
    data: Any  # engine.finetune.job.FineTuneData
    lr: float


def _check_file(path: str | None, flag: str) -> None:
    if path is None:
        return
    p = Path(path)
    if not p.is_file():
        raise WorkbenchError(f"{flag} {p}: no such file")


def base_folder(model: str) -> Path:
    """The folder of the base model ``model`` names ("" = the embedded default)."""
    from engine.sources import resolve_model

    return Path(resolve_model(model or "minilm").folder)


def method_and_config(name: str, settings: dict[str, str], task: str) -> tuple[Any, Any]:
    """The method plugin and its ``Config`` with ``settings`` (strings) applied; checks the task too."""
    from engine.objectives.config_fields import config_from_strings
    from workbench.finetune.methods import finetune_method

    method = finetune_method(name)
    if task not in method.tasks:
        raise WorkbenchError(f"the {name} method does not support the {task} task "
                             f"(it supports {', '.join(sorted(method.tasks))})")
    config = config_from_strings(method.default_config(), [f"{k}={v}" for k, v in settings.items()], name)
    method.check_config(config)
    return method, config


def preflight(spec: FineTuneSpec) -> Preflight:
    """Every check that needs no training; returns what the run needs (data read, method found)."""
    from engine.finetune.task_model import check_task_support
    from engine.training.config import TrainingConfig
    from workbench.finetune.task_data import read_task_data

    spec.check()
    _check_file(spec.train, "--train")
    _check_file(spec.validation, "--validation")
    method, config = method_and_config(spec.method, spec.method_config, spec.task)
    TrainingConfig.from_dict(dict(spec.training))
    folder = base_folder(spec.model)
    check_task_support(folder, spec.task)
    data = read_task_data(spec)
    lr = spec.lr if spec.lr is not None else float(method.default_lr)
    if not lr > 0:
        raise WorkbenchError(f"the learning rate must be > 0, not {lr}")
    return Preflight(method, config, folder, data, lr)


def run_finetune(spec: FineTuneSpec, *, cancel: Any = NEVER_CANCELLED, report: Callable[[Any], None] = lambda e: None,
                 run_id: int | None = None) -> dict[str, Any]:
    """Fine-tune as ``spec`` says; returns the summary (also ``out_dir/summary.json``)."""
    checked = preflight(spec)

    import torch

    from engine.finetune.job import FineTuneSettings, finetune_steps
    from engine.finetune.task_model import build_task_model, load_task_tokenizer
    from workbench.finetune.outputs import save_outputs

    out_dir = Path(spec.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = load_task_tokenizer(checked.base_folder)
    torch.manual_seed(spec.seed)  # the fresh head's initial weights
    model = build_task_model(checked.base_folder, spec.task, checked.data.labels)
    settings = FineTuneSettings(epochs=spec.epochs, batch_size=spec.batch_size, lr=checked.lr,
                                max_length=spec.max_length, seed=spec.seed, training=dict(spec.training))
    checkpoints = Path(tempfile.mkdtemp(prefix=".checkpoints-", dir=out_dir))
    try:
        result = drive(finetune_steps(model, tokenizer, checked.method, checked.method_config, checked.data,
                                      settings, checkpoint_dir=checkpoints, cancel=cancel), report)
    finally:
        shutil.rmtree(checkpoints, ignore_errors=True)
    return save_outputs(spec=spec, out_dir=out_dir, base_folder=checked.base_folder, method=checked.method,
                        method_config=checked.method_config, data=checked.data, tokenizer=tokenizer, result=result,
                        lr=checked.lr, run_id=run_id)


def parameter_counts(spec: FineTuneSpec) -> tuple[int, int]:
    """(trainable, total) parameters the spec's method gives its task model, without training (a few
    seconds: the base is loaded and the method applied; run it off the GUI thread)."""
    import torch

    from engine.finetune.job import count_parameters
    from engine.finetune.task_model import build_task_model

    checked = preflight(spec)
    torch.manual_seed(spec.seed)
    model = build_task_model(checked.base_folder, spec.task, checked.data.labels)
    return count_parameters(checked.method.apply(model, checked.method_config, spec.task))


def open_output(folder: str | os.PathLike) -> Any:
    """A finished run's model, reloaded on its base (``engine.finetune.saved.FineTunedModel``)."""
    from engine.finetune.saved import load_finetuned, read_manifest
    from workbench.finetune.methods import finetune_method

    manifest = read_manifest(folder)
    return load_finetuned(folder, finetune_method(manifest["method"]))


def merge_output(folder: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Fold a mergeable run (LoRA) into its base weights; write a ``full`` output folder at ``out``."""
    from engine.finetune.saved import ADAPTER_FOLDER, read_manifest, write_manifest
    from workbench.finetune.methods import finetune_method

    manifest = read_manifest(folder)
    method = finetune_method(manifest["method"])
    if not getattr(method, "can_merge", False):
        raise WorkbenchError(f"a {manifest['method']} run cannot be merged into the base weights (only LoRA can)")
    out = Path(out)
    if out.resolve() == Path(folder).resolve():
        raise WorkbenchError("--out must be another folder than the run's")
    tuned = open_output(folder)
    merged = method.merge(tuned.model)
    adapter = out / ADAPTER_FOLDER
    shutil.rmtree(adapter, ignore_errors=True)
    adapter.mkdir(parents=True)
    merged.save_pretrained(adapter, safe_serialization=True)
    tuned.tokenizer.save_pretrained(adapter)
    extra = {k: v for k, v in manifest.items() if k not in ("format", "base_model", "task", "method",
                                                            "method_config", "labels", "text_columns",
                                                            "max_length", "run_id", "merged_from")}
    write_manifest(out, base_model=manifest["base_model"], task=manifest["task"], method="full", method_config={},
                   labels=manifest.get("labels") or [], text_columns=manifest.get("text_columns"),
                   max_length=manifest["max_length"], run_id=manifest.get("run_id"),
                   merged_from=str(Path(folder).resolve()), **extra)
    return out

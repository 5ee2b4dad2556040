"""One fine-tuning run in this process: ``run_finetune(spec, cancel=..., report=...)``.

The same function serves the long-run job (in its child process) and ``lm-workbench finetune``.
In order: ``preflight`` checks everything cheap (the spec, the files and their columns, the method,
its settings and tasks, the base model's fitness for the task) so mistakes fail in a second and
leave no failed run behind; then the base is loaded as the task's model (head seeded by the spec's
seed), the method applied and trained by the one loop (``lm_workbench.engine.finetune.train``), and the output
folder written (``lm_workbench.finetune.outputs``). Training checkpoints go to ``out_dir/checkpoints``
with the spec beside them (``SPEC_FILE``) and stay there until the outputs are written: a cancelled,
failed or killed run is continued by ``resume_spec`` (``lm-workbench finetune --resume RUN_OR_DIR``,
the Runs tab's Resume), and a new run refuses a folder that holds an unfinished one. Under torchrun
every rank trains (the loop shards the data); rank 0 alone writes the folder.

Space before work: once the method is applied (``ParametersCounted``), before the first step, the
checkpoints (every weight plus AdamW's two float32 moments of the trainable ones) and the outputs are
estimated (``lm_workbench.runs.disk_space``) and a disk that will not hold them refuses the run with the
numbers. A write that fails anyway (a full disk, a folder made read-only, a file deleted) removes the
half-written output folder and ends the run with one line naming the file and the checkpoint kept to
resume from (``fault_keeping_checkpoints``).

``open_output(folder)`` reloads a finished run's model for ``predict``; ``merge_output`` folds a
LoRA (IA³, DoRA) run into the base weights as a new output folder whose method is ``full``
(``lm_workbench.engine.finetune.merging``; several runs combined: ``lm_workbench.finetune.merge_runs``).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, drive
from lm_workbench.finetune.spec import FineTuneSpec
from lm_workbench.runs.resume import CHECKPOINTS_FOLDER, fault_keeping_checkpoints, resolve_resume, resumable_checkpoint

SPEC_FILE = "finetune_spec.json"  # in OUT/checkpoints: the spec a resume continues with


@dataclass
class Preflight:
    method: Any
    method_config: Any
    base_folder: Path
    data: Any  # lm_workbench.engine.finetune.train.FineTuneData
    lr: float
    start: Any = None  # a preference run's ``preference_start.StartingPoint``


def _check_file(path: str | None, flag: str) -> None:
    if path is None:
        return
    from lm_workbench.engine.data.hub_datasets import looks_like_dataset

    p = Path(path)
    if not p.is_file() and not looks_like_dataset(path):
        raise WorkbenchError(f"{flag} {p}: no such file (nor a dataset in the cache such as glue/sst2:train)")


def base_folder(model: str) -> Path:
    """The folder of the base model ``model`` names ("" = the embedded default)."""
    from lm_workbench.models.loader import resolve_folder

    return resolve_folder(model or "minilm")


def method_and_config(name: str, settings: dict[str, str], task: str) -> tuple[Any, Any]:
    """The method plugin and its ``Config`` with ``settings`` (strings) applied; checks the task too."""
    from lm_workbench.engine.objectives.config_fields import config_from_strings
    from lm_workbench.finetune.methods import finetune_method

    method = finetune_method(name)
    if task not in method.tasks:
        raise WorkbenchError(f"the {name} method does not support the {task} task "
                             f"(it supports {', '.join(sorted(method.tasks))})")
    config = config_from_strings(method.default_config(), [f"{k}={v}" for k, v in settings.items()], name)
    method.check_config(config)
    return method, config


def _rank() -> int:
    return int(os.environ.get("RANK", "0") or 0)


def saved_spec(out_dir: str | os.PathLike) -> FineTuneSpec:
    """The spec an unfinished run in ``out_dir`` was started with."""
    file = Path(out_dir) / CHECKPOINTS_FOLDER / SPEC_FILE
    try:
        return FineTuneSpec.from_dict(json.loads(file.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise WorkbenchError(f"{out_dir} is not an unfinished fine-tuning run ({CHECKPOINTS_FOLDER}/{SPEC_FILE} "
                             "is missing); resume it by its run id instead") from None
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {file}: {exc}") from None


def resume_spec(target: str, *, store_path: Any = None) -> FineTuneSpec:
    """The spec that continues the run ``target`` names: a run id from the run store, the run's output
    folder, or one of its checkpoint folders. Its output folder is where the checkpoint is now."""
    text = str(target).strip()
    stored: FineTuneSpec | None = None
    if text.isdigit() and not Path(text).exists():
        stored = _stored_spec(int(text), store_path)
        text = stored.out_dir
    checkpoint, out_dir = resolve_resume(text)
    if stored is None or (out_dir / CHECKPOINTS_FOLDER / SPEC_FILE).is_file():
        stored = saved_spec(out_dir)
    named_a_step = Path(text).resolve() == checkpoint.resolve()
    return replace(stored, out_dir=str(out_dir), resume=str(checkpoint if named_a_step else out_dir))


def _stored_spec(run_id: int, store_path: Any) -> FineTuneSpec:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(store_path or runs_db_path()) as store:
        try:
            run = store.get_run(run_id)
        except KeyError:
            raise WorkbenchError(f"there is no run {run_id} in the run store") from None
    if run["kind"] != "finetune":
        raise WorkbenchError(f"run {run_id} is a {run['kind']} run, not a fine-tuning run")
    return FineTuneSpec.from_dict({**(run.get("params") or {}), "resume": None})


def _check_out_dir(spec: FineTuneSpec) -> None:
    """A new run must not land on an unfinished one (its checkpoints would be overwritten)."""
    if spec.resume:
        return
    found = resumable_checkpoint(spec.out_dir)
    if found is not None:
        raise WorkbenchError(
            f"{spec.out_dir} holds an unfinished fine-tuning run (checkpoint {found.name}); continue it with "
            f"'lm-workbench finetune --resume {spec.out_dir}' (or Resume in the Runs tab), or choose another --out")


def _remove_leftovers(out_dir: Path) -> None:
    """Hidden checkpoint folders a killed run of an older version left (they cannot be resumed)."""
    for path in out_dir.glob(".checkpoints-*"):
        shutil.rmtree(path, ignore_errors=True)


def preflight(spec: FineTuneSpec) -> Preflight:
    """Every check that needs no training; returns what the run needs (data read, method found)."""
    from lm_workbench.engine.finetune.attach_check import check_attaches
    from lm_workbench.engine.finetune.task_model import check_task_support
    from lm_workbench.engine.training.config import TrainingConfig
    from lm_workbench.finetune.task_data import read_task_data

    spec.check()
    _check_out_dir(spec)
    if spec.resume:
        resolve_resume(spec.resume)
    _check_file(spec.train, "--train")
    _check_file(spec.validation, "--validation")
    method, config = method_and_config(spec.method, spec.method_config, spec.task)
    TrainingConfig.from_dict(dict(spec.training))
    start = None
    if spec.task == "preference":  # may start from an instruct run's output folder
        from lm_workbench.finetune.preference_start import starting_point

        start = starting_point(spec.model, base_folder)
        folder = start.folder
    else:
        folder = base_folder(spec.model)
    check_task_support(folder, spec.task)
    data = read_task_data(spec, folder)
    if spec.task == "instruct":
        data.template = instruct_template(folder, spec.template, data)
    check_attaches(method, config, folder, spec.task, data.labels)  # a missing site is said before any run starts
    lr = spec.lr if spec.lr is not None else float(method.default_lr)
    if not lr > 0:
        raise WorkbenchError(f"the learning rate must be > 0, not {lr}")
    return Preflight(method, config, folder, data, lr, start)


def instruct_template(folder: Path, choice: str, data: Any) -> Any:
    """The chat template an instruct run uses (``lm_workbench.engine.instruct.template.resolve_template`` on the base's
    tokenizer); what it is, and a fallback to plain, are added to the training file's report, so they are said."""
    from lm_workbench.engine.finetune.task_model import load_task_tokenizer
    from lm_workbench.engine.instruct.template import resolve_template

    template = resolve_template(load_task_tokenizer(folder), choice)
    report = data.reads.get("train")
    if report is not None:
        report.note(template.note or f"chat template: {template.name}")
    return template


def check_space_for(spec: FineTuneSpec, counted: Any, model: Any, tokenizer: Any, train_size: int) -> None:
    """Refuse (``NotEnoughSpace``) when the checkpoints and the outputs will not fit in ``spec.out_dir``."""
    from lm_workbench.engine.finetune.train import FineTuneSettings, training_config
    from lm_workbench.engine.training.distributed import env_world_size
    from lm_workbench.runs import disk_space as space

    width = max((p.element_size() for p in model.parameters()), default=4)
    settings = FineTuneSettings(epochs=spec.epochs, batch_size=spec.batch_size, lr=1.0, max_length=spec.max_length,
                                seed=spec.seed, training=dict(spec.training))
    config = training_config(settings, train_size, env_world_size())
    checkpoint = space.checkpoint_bytes(counted.total, counted.trainable, width)
    out_dir = Path(spec.out_dir)
    present, count = space.existing_checkpoints(out_dir / CHECKPOINTS_FOLDER)
    needed = space.training_bytes(
        checkpoint, saves=space.checkpoint_saves(config.steps, config.checkpoint_every), keep=config.keep_checkpoints,
        outputs=counted.trainable * width + space.tokenizer_bytes(len(tokenizer)),
        present=present, present_count=count)
    space.check_space(out_dir, needed, f"fine-tuning with {spec.method} ({counted.trainable:,} of {counted.total:,} "
                                       "parameters trained)")


def run_finetune(spec: FineTuneSpec, *, cancel: Any = NEVER_CANCELLED, report: Callable[[Any], None] = lambda e: None,
                 run_id: int | None = None) -> dict[str, Any]:
    """Fine-tune as ``spec`` says; returns the summary (also ``out_dir/summary.json``)."""
    checked = preflight(spec)
    try:
        return _run_finetune(spec, checked, cancel, report, run_id)
    except Exception as exc:
        fault = fault_keeping_checkpoints(exc, spec.out_dir, f"continue from it with 'lm-workbench finetune "
                                                             f"--resume {spec.out_dir}' (or Resume in the Runs tab)")
        if fault is None:
            raise
        raise fault from exc


def _run_finetune(spec: FineTuneSpec, checked: Preflight, cancel: Any, report: Callable[[Any], None],
                  run_id: int | None) -> dict[str, Any]:
    import torch

    from lm_workbench.engine.finetune.train import FineTuneSettings, ParametersCounted, finetune_job
    from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer
    from lm_workbench.finetune.outputs import save_outputs

    out_dir = Path(spec.out_dir)
    checkpoints = out_dir / CHECKPOINTS_FOLDER
    resume_from = resolve_resume(spec.resume)[0] if spec.resume else None
    main = _rank() == 0
    if main:
        checkpoints.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(out_dir)
        if resume_from is None:  # a resume keeps the spec the run was started with
            (checkpoints / SPEC_FILE).write_text(json.dumps(replace(spec, resume=None).to_dict(), indent=1),
                                                 encoding="utf-8")
    if checked.start is not None and main:  # preference: an earlier LoRA run is merged into OUT/start first
        from lm_workbench.finetune.preference_start import materialise

        checked = replace(checked, base_folder=materialise(checked.start, out_dir, merge_output))
    tokenizer = load_task_tokenizer(checked.base_folder)
    torch.manual_seed(spec.seed)  # the fresh head's initial weights
    model = build_task_model(checked.base_folder, spec.task, checked.data.labels)
    settings = FineTuneSettings(epochs=spec.epochs, batch_size=spec.batch_size, lr=checked.lr,
                                max_length=spec.max_length, seed=spec.seed, training=dict(spec.training))

    def checked_report(event: Any) -> None:
        if main and isinstance(event, ParametersCounted):  # the method is applied; no step has run
            check_space_for(spec, event, model, tokenizer, len(checked.data.train))
        report(event)

    if spec.task == "preference":
        from lm_workbench.engine.preference.train import preference_job
        from lm_workbench.finetune.preference_start import run_template

        encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))
        checked.data.template = run_template(checked.start, tokenizer, getattr(spec, "template", None),
                                             encoder_decoder)
        if encoder_decoder and checked.data.reads.get("train") is not None:  # said, as an instruct run's template
            checked.data.reads["train"].note(checked.data.template.note)
        job = preference_job(model, tokenizer, checked.method, checked.method_config, checked.data, settings,
                             template=checked.data.template,
                             beta=spec.preference_beta, checkpoint_dir=checkpoints, cancel=cancel,
                             resume_from=resume_from)
    else:
        job = finetune_job(model, tokenizer, checked.method, checked.method_config, checked.data, settings,
                           checkpoint_dir=checkpoints, cancel=cancel, resume_from=resume_from)
    result = drive(job, checked_report)
    if not main:  # under torchrun: rank 0 writes the outputs
        return {"rank": _rank(), "steps": result.steps}
    summary = save_outputs(spec=spec, out_dir=out_dir, base_folder=checked.base_folder, method=checked.method,
                           method_config=checked.method_config, data=checked.data, tokenizer=tokenizer,
                           result=result, lr=checked.lr, run_id=run_id,
                           forgetting=forgetting_of(checked.base_folder, result.model, tokenizer, spec.max_length))
    shutil.rmtree(checkpoints, ignore_errors=True)  # finished: nothing to resume is left beside the outputs
    return summary


def forgetting_of(base: Path, model: Any, tokenizer: Any, max_length: int) -> dict[str, Any]:
    """The base task's loss before/after on a held-out text (``lm_workbench.engine.finetune.forgetting``); a measure that
    cannot run says why instead of failing the finished run."""
    from lm_workbench.engine.finetune.forgetting import measure_forgetting

    try:
        return measure_forgetting(base, model, tokenizer, max_length=max_length, chunks=4).as_json()
    except (WorkbenchError, RuntimeError, ValueError, TypeError, KeyError, IndexError, AttributeError, OSError) as exc:
        return {"objective": None, "before": None, "after": None, "delta": None, "tokens": 0,
                "note": f"not measured: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"}


def parameter_counts(spec: FineTuneSpec) -> tuple[int, int]:
    """(trainable, total) parameters the spec's method gives its task model, without training (a few
    seconds: the base is loaded and the method applied; run it off the GUI thread)."""
    import torch

    from lm_workbench.engine.finetune.train import count_parameters
    from lm_workbench.engine.finetune.task_model import build_task_model

    checked = preflight(spec)
    torch.manual_seed(spec.seed)
    model = build_task_model(checked.base_folder, spec.task, checked.data.labels)
    return count_parameters(checked.method.apply(model, checked.method_config, spec.task))


def open_output(folder: str | os.PathLike) -> Any:
    """A finished run's model, reloaded on its base (``lm_workbench.engine.finetune.saved.FineTunedModel``)."""
    from lm_workbench.finetune.methods import finetune_method
    from lm_workbench.engine.finetune.saved import load_finetuned, read_manifest

    manifest = read_manifest(folder)
    return load_finetuned(folder, finetune_method(manifest["method"]))


def merge_output(folder: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Fold a mergeable run (LoRA, IA³, DoRA: a peft adapter of a mergeable type) into its base weights; write a
    ``full`` output folder at ``out`` (``lm_workbench.engine.finetune.merging.fold_run``)."""
    from lm_workbench.engine.finetune.merging import fold_run, read_source

    out = Path(out)
    if out.resolve() == Path(folder).resolve():
        raise WorkbenchError("--out must be another folder than the run's")
    return fold_run(read_source(folder), out)

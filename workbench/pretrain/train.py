"""One pre-training run, in this process: ``run_pretrain(spec, cancel=..., report=...)``.

The same function serves the long-run job (in its child process), the
``lm-workbench pretrain`` command and every rank under ``torchrun``. In order:
check the spec and the objective (cheap, so mistakes fail in a second), train
the tokenizer (or reuse the resumed run's), pack the corpus into a cached
data set, build the model with the head the objective asks for plus the
objective's own heads and frozen auxiliary models, run the training loop
(``lm_workbench.engine.training``; checkpoints under ``out_dir/checkpoints``), and save the
model, its tokenizer and the objective heads in ``out_dir/model`` plus
``out_dir/summary.json``.

Output folder layout::

    out_dir/tokenizer/                 the trained tokenizer (reused on resume)
    out_dir/data/                      the packed data set (a cache; safe to delete)
    out_dir/checkpoints/step-XXXXXXXX/ training checkpoints (safetensors + JSON)
    out_dir/model/                     save_pretrained model + tokenizer (+ objective_heads.safetensors)
    out_dir/summary.json               the run's numbers

Under torchrun rank 0 trains the tokenizer and packs the data while the
others wait at a barrier, then they load both from disk; only rank 0 writes
the model and summary (the loop already restricts checkpoints to rank 0).

Space before work: once the model is built, and before the first step, the
checkpoints and the model folder it will write are estimated
(``lm_workbench.runs.disk_space``) and a disk that will not hold them refuses the
run with the numbers. A write that fails anyway (a full disk, a folder made
read-only, a file deleted under the run) ends it with one line that names the
file and the last good checkpoint to resume from (``fault_keeping_checkpoints``).
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress, drive
from lm_workbench.engine.wording import with_article
from lm_workbench.pretrain.family_objectives import missing_tokens
from lm_workbench.pretrain.outputs import HEADS_FILE, save_outputs
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.runs.resume import fault_keeping_checkpoints, resolve_resume

__all__ = ["HEADS_FILE", "check_objective", "preflight", "resolve_resume", "run_pretrain"]


def _check_corpus_files(paths: list[str]) -> None:
    """Fail fast (before any heavy import) on a corpus file that is not there."""
    for path in paths:
        p = Path(path)
        if not p.exists():
            raise WorkbenchError(f"corpus file {p} does not exist")
        if not p.is_file():
            raise WorkbenchError(f"corpus path {p} is not a file")


def num_sentinels_for(vocab_size: int) -> int:
    """T5 sentinel tokens: the usual 100, fewer for tiny vocabularies (an eighth of them)."""
    return max(2, min(100, vocab_size // 8))


def _tokenizer(spec: PretrainSpec, out_dir: Path, source_dir: Path | None, inherit: str | None, dist: Any,
               report: Callable) -> Any:
    """Train the family's tokenizer on the corpus (rank 0), or load the resumed run's.

    ``inherit`` names a model whose tokenizer to use instead (a distillation
    teacher: the student must predict over the teacher's vocabulary, and a
    tokenizer trained anew would differ from it).
    """
    from transformers import AutoTokenizer

    from lm_workbench.engine.pretrain.corpus import corpus_lines
    from lm_workbench.engine.pretrain.tokenizer_training import train_tokenizer

    if inherit is not None and source_dir is None:
        from lm_workbench.models.spec_kinds import load_spec_tokenizer

        if dist.is_main:
            report(Progress(0, 0, f"using the tokenizer of {inherit}"))
            load_spec_tokenizer(inherit).save_pretrained(out_dir / "tokenizer")  # course:<family> too
        dist.barrier()
        return AutoTokenizer.from_pretrained(out_dir / "tokenizer")
    if source_dir is not None:
        folder = source_dir / "tokenizer"
        if not (folder / "tokenizer_config.json").is_file():
            raise WorkbenchError(f"cannot resume: {source_dir} has no tokenizer folder")
        if dist.is_main and source_dir.resolve() != out_dir.resolve():
            AutoTokenizer.from_pretrained(folder).save_pretrained(out_dir / "tokenizer")
        return AutoTokenizer.from_pretrained(folder)
    folder = out_dir / "tokenizer"
    if dist.is_main:
        report(Progress(0, 0, f"training {with_article(spec.family)} tokenizer ({spec.vocab_size} tokens)"))
        train_tokenizer(spec.family, corpus_lines(spec.corpus), folder, vocab_size=spec.vocab_size,
                        num_sentinels=num_sentinels_for(spec.vocab_size), model_max_length=spec.max_positions)
    dist.barrier()
    return AutoTokenizer.from_pretrained(folder)


def _dataset(spec: PretrainSpec, tokenizer: Any, out_dir: Path, seed: int, dist: Any, cancel: Any,
             report: Callable) -> Any:
    """Pack the corpus (rank 0 first; the other ranks then read the cache it wrote)."""
    from lm_workbench.engine.pretrain.corpus import CorpusSpec
    from lm_workbench.engine.pretrain.dataset import prepare_dataset

    corpus = CorpusSpec(paths=list(spec.corpus), validation_fraction=spec.validation_fraction, seed=seed)

    def prepare() -> Any:
        return drive(prepare_dataset(corpus, tokenizer, spec.family, spec.max_positions, out_dir / "data",
                                     cancel=cancel), report)

    if dist.is_main:
        data = prepare()
        dist.barrier()
        return data
    dist.barrier()
    return prepare()


def _auxiliary_models(registry: Any, objective: Any, config: Any, wanted: dict[str, str], model: Any,
                      tokenizer: Any, device: str) -> dict[str, Any]:
    """The objective's frozen helper models (a distillation teacher), loaded and checked."""
    import torch

    from lm_workbench.engine.objectives.api import freeze_auxiliary
    from lm_workbench.models.loader import load_model
    from lm_workbench.settings import Settings

    record = registry.record(objective.name)
    aux: dict[str, Any] = {}
    for name, model_spec in wanted.items():
        # course:<family> too; the safe defaults and this run's thread count, not the window's settings
        loaded = load_model(model_spec, device=device, precision="float32",
                            settings=Settings(cpu_threads=torch.get_num_threads()))
        check_teacher = getattr(objective, "check_teacher", None)
        if callable(check_teacher):
            with registry.guard(record, "check_teacher"):
                check_teacher(loaded.tokenizer, tokenizer)
        aux[name] = freeze_auxiliary(loaded.model)
    if aux:
        with registry.guard(record, "check_aux"):
            objective.check_aux(aux, model, config)
    return aux


def check_objective(spec: PretrainSpec, registry: Any = None) -> tuple[Any, Any, Any]:
    """(registry, objective, its parsed config) for the spec; ``WorkbenchError`` when it does not apply.

    Checks the name, the settings and that the objective is for the spec's
    family (``lm_workbench.pretrain.family_objectives``: its models, and the tokens its
    tokenizer has), without training anything.
    """
    from lm_workbench.engine.objectives.config_fields import config_from_strings
    from lm_workbench.engine.pretrain.architectures import ENGINE_FAMILY
    from lm_workbench.extensions.registry import ObjectiveRegistry
    from lm_workbench.settings import load_settings

    registry = registry or ObjectiveRegistry.discover(load_settings())
    objective = registry.objective(spec.objective)
    record = registry.record(objective.name)
    assignments = [f"{k}={v}" for k, v in spec.objective_config.items()]
    with registry.guard(record, "reading its settings"):
        config = config_from_strings(objective.default_config(), assignments, objective.name)
        objective.check_config(config)
    family = ENGINE_FAMILY[spec.family]
    with registry.guard(record, "checking its requirements"):
        objective.check_requirements(None, {"family": family.value, "spec": f"{with_article(spec.family)} model"},
                                     config)
        missing = missing_tokens(spec.family, objective.requirements(config).tokens)
    if missing:
        raise WorkbenchError(f"{objective.name} needs {', '.join(missing)}, which {with_article(spec.family)} "
                             "tokenizer "
                             "does not have")
    return registry, objective, config


def preflight(spec: PretrainSpec) -> tuple[Any, Any, Any, Any]:
    """Every check that needs no training: the spec, corpus files, training settings, objective, resume folder.

    Returns (training config, registry, objective, objective config). Callers
    that record a run (the CLI) call this first, so a typo never leaves a
    failed run behind; ``run_pretrain`` calls it again (it is cheap).
    """
    spec.check()
    _check_corpus_files(spec.corpus)
    from lm_workbench.engine.training.config import TrainingConfig

    training = TrainingConfig.from_dict(dict(spec.training))
    registry, objective, config = check_objective(spec)
    if spec.resume:
        resolve_resume(spec.resume)
    return training, registry, objective, config


def run_pretrain(spec: PretrainSpec, *, cancel: Any = NEVER_CANCELLED, report: Callable[[Any], None] = lambda e: None,
                 run_id: int | None = None) -> dict[str, Any]:
    """Pre-train as ``spec`` says; returns the summary (also written to ``out_dir/summary.json``).

    ``report`` receives every event: ``Progress`` (tokenizer, data, steps),
    and the loop's ``StepMetrics``, ``EvalMetrics`` and ``CheckpointSaved``.
    A cancel makes the loop save a checkpoint and raise ``Cancelled``.
    """
    training, registry, objective, config = preflight(spec)
    resume_from, source_dir = resolve_resume(spec.resume) if spec.resume else (None, None)
    try:
        return _run_pretrain(spec, training, registry, objective, config, resume_from, source_dir, cancel, report,
                             run_id)
    except Exception as exc:
        cause = _vanished_corpus(spec, exc) or exc
        fault = fault_keeping_checkpoints(
            cause, spec.out_dir, f"continue from it with the same 'lm-workbench pretrain' command and --resume {spec.out_dir}")
        if fault is None:
            raise
        raise fault from exc


def _vanished_corpus(spec: PretrainSpec, exc: BaseException) -> OSError | None:
    """A corpus file that ``preflight`` found but that is gone now: the error it caused (the engine calls
    it a missing input) is a file deleted under the run, a fault of the machine rather than bad input."""
    if not isinstance(exc, WorkbenchError):
        return None
    for path in spec.corpus:
        if not Path(path).is_file():
            return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    return None


def check_space_for(spec: PretrainSpec, training: Any, model: Any, heads: dict, tokenizer: Any) -> None:
    """Refuse (``NotEnoughSpace``) when the checkpoints and the model folder will not fit in ``spec.out_dir``."""
    from lm_workbench.runs import disk_space as space

    params = {id(p): p for module in (model, *heads.values()) for p in module.parameters()}
    total = sum(p.numel() for p in params.values())
    trainable = sum(p.numel() for p in params.values() if p.requires_grad)
    width = max((p.element_size() for p in params.values()), default=4)
    checkpoint = space.checkpoint_bytes(total, trainable, width)
    out_dir = Path(spec.out_dir)
    present, count = space.existing_checkpoints(out_dir / "checkpoints")
    needed = space.training_bytes(
        checkpoint, saves=space.checkpoint_saves(training.steps, training.checkpoint_every),
        keep=training.keep_checkpoints, outputs=total * width + space.tokenizer_bytes(len(tokenizer)),
        present=present, present_count=count)
    space.check_space(out_dir, needed, f"pre-training this {spec.family} model ({total:,} parameters)")


def _run_pretrain(spec: PretrainSpec, training: Any, registry: Any, objective: Any, config: Any,
                  resume_from: Path | None, source_dir: Path | None, cancel: Any, report: Callable[[Any], None],
                  run_id: int | None) -> dict[str, Any]:

    import torch

    from lm_workbench.engine.models.loading import quiet_transformers
    from lm_workbench.engine.pretrain.architectures import ArchitectureSpec, build_config, build_model
    from lm_workbench.engine.pretrain.output_prior import init_output_prior
    from lm_workbench.engine.pretrain.sampler import ExampleSampler
    from lm_workbench.engine.training.distributed import setup_distributed
    from lm_workbench.engine.training.loop import train
    from lm_workbench.pretrain.task_builder import build_task

    quiet_transformers()
    started = time.monotonic()
    out_dir = Path(spec.out_dir)
    dist, device = setup_distributed(training.device)
    try:
        if dist.is_main:
            out_dir.mkdir(parents=True, exist_ok=True)
        dist.barrier()
        record = registry.record(objective.name)
        with registry.guard(record, "auxiliary_models"):
            aux_specs = dict(objective.auxiliary_models(config) or {})
        inherit = next(iter(aux_specs.values()), None)
        tokenizer = _tokenizer(spec, out_dir, source_dir, inherit, dist, report)
        with registry.guard(registry.record(objective.name), "checking its requirements"):
            objective.check_requirements(tokenizer, None, config)
        data = _dataset(spec, tokenizer, out_dir, training.seed, dist, cancel, report)
        if len(data.train) == 0 or len(data.validation) == 0:
            raise WorkbenchError("the corpus is too small: it gives no training or no validation examples")

        arch = ArchitectureSpec(family=spec.family, preset=spec.preset, layers=spec.layers, hidden=spec.hidden,
                                heads=spec.heads, intermediate=spec.intermediate, max_positions=spec.max_positions,
                                dropout=spec.dropout)
        model_config = build_config(arch, tokenizer, softmax_size=spec.vocab_size)
        head = objective.requirements(config).head
        torch.manual_seed(training.seed)
        model = build_model(model_config, head)
        init_output_prior(model, data.train)  # BART: else its encoder collapses (see output_prior)
        with registry.guard(record, "build_heads"):
            heads = dict(objective.build_heads(config, model_config) or {})
        aux = _auxiliary_models(registry, objective, config, aux_specs, model, tokenizer, str(device))
        if dist.is_main:
            check_space_for(spec, training, model, heads, tokenizer)
        task = build_task(registry=registry, objective_name=objective.name, objective_config=config,
                          tokenizer=tokenizer, model=model, heads=heads, aux=aux, train_set=data.train,
                          validation_set=data.validation, batch_size=training.batch_size,
                          eval_batches=training.eval_batches, seed=training.seed,
                          encoder=spec.family == "bert")
        evaluations: list[tuple[int, float]] = []

        def note_evaluation(event: Any) -> None:
            if type(event).__name__ == "EvalMetrics":
                evaluations.append((int(event.step), float(event.validation_loss)))
            report(event)

        result = drive(train(task, training, checkpoint_dir=out_dir / "checkpoints", resume_from=resume_from,
                             cancel=cancel, sampler_factory=ExampleSampler), note_evaluation)
        if not dist.is_main:
            return {"rank": dist.rank, "steps": result.steps_done}
        return save_outputs(spec=spec, out_dir=out_dir, model=model, heads=heads, tokenizer=tokenizer,
                            result=result, data=data, evaluations=evaluations, run_id=run_id,
                            resumed_from=resume_from, elapsed_s=time.monotonic() - started,
                            objective_config=config, head=head)
    finally:
        dist.close()


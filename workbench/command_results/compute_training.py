"""The recorded training runs computed for both front ends: ``pretrain`` (a BERT, GPT-2, BART, T5 or ELMo from
scratch with a registered objective), ``finetune`` (a task, sentence embeddings, instructions or preferences, with
full fine-tuning or a PEFT method), ``tuned-lens`` (an affine translator per layer, Belrose et al. 2023) and ``sae
train`` (a sparse autoencoder on a hook point). Each runs in this process, records its run in the run store (the
window's Runs tab lists it) and returns a ``RunResult`` whose ``to_dict()`` is the ``--json`` summary; Ctrl-C (or
Jupyter's interrupt) saves a checkpoint and the result is ``cancelled`` with exit code 130 (``resume`` continues it).
``echo`` (the CLI's stderr lines) is optional: the Python API's progress bar sees the steps. Under ``torchrun`` a
rank other than 0 returns a result holding None (rank 0 records and reports). Errors: ``WorkbenchError`` with the
CLI's line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lm_workbench.command_results.checks import note, say_read_report
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import EXIT_INTERRUPTED, Result, result_for
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.finetune.method_settings import OPTION_PREFIX

Echo = Callable[[str], None] | None
PRETRAIN_KEYS = ("run_id", "first_loss", "final_loss", "validation_loss", "tokens_per_s")  # first in the JSON
FINETUNE_KEYS = ("run_id", "trainable_parameters", "total_parameters", "validation")
TUNED_LENS_KEYS = ("run_id", "model", "out_dir", "steps", "layers", "kl", "mean_kl")
SPEC_TRAINING_FIELDS = ("steps", "batch_size", "lr", "seed")  # finetune's own options (or epochs) set these


def run_result(command: str, summary: dict[str, Any] | None, first: tuple[str, ...] = ()) -> Result:
    """The result of a recorded run's ``summary``: ``first`` keys first (the ``--json`` order), exit code 130 when
    it was cancelled; data None on a torchrun rank other than 0."""
    if summary is None:
        return result_for(command, None)
    if summary.get("cancelled"):
        return result_for(command, as_json(summary), exit_code=EXIT_INTERRUPTED, engine_result=summary)
    ordered = {k: summary.get(k) for k in first} | {k: v for k, v in summary.items() if k not in first}
    return result_for(command, as_json(ordered), engine_result=summary)


def _typed_training(items: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """``KEY=VALUE`` training settings, each typed as ``TrainingConfig``'s field (``skip``: fields not taken)."""
    from lm_workbench.engine.training.config import training_config_fields
    from lm_workbench.pretrain.spec import parse_training_assignments

    kinds = {"int": int, "float": float, "str": str, "bool": bool}
    types: dict[str, Any] = {}
    for f in training_config_fields():
        if f.name not in skip:
            types[f.name] = (kinds[f.kind], type(None)) if f.default is None else kinds[f.kind]
    return parse_training_assignments(list(items), types)


# -- pretrain ------------------------------------------------------------------------------------------------------

def pretrain_spec(request: Any) -> Any:
    """The ``PretrainSpec`` a ``pretrain`` request (or command line) describes (training values typed, not yet
    validated). Errors: a ``--set`` that is not ``key=value``, a training setting of the wrong type."""
    from lm_workbench.pretrain.spec import TRAINING_FLAGS, PretrainSpec

    training = _typed_training(request.train)
    for key in TRAINING_FLAGS:
        value = getattr(request, key, None)
        if value is not None:
            training[key] = value
    config: dict[str, str] = {}
    for item in request.set:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise WorkbenchError(f"an objective setting must look like key=value, not {item!r}")
        config[key.strip()] = value
    return PretrainSpec(
        family=request.family, objective=request.objective, corpus=[str(Path(p)) for p in request.corpus],
        out_dir=str(Path(request.out)), preset=request.preset, layers=request.layers, hidden=request.hidden,
        heads=request.heads, intermediate=request.intermediate, dropout=request.dropout,
        max_positions=request.seq_len, vocab_size=request.vocab_size, objective_config=config, training=training,
        validation_fraction=request.validation_fraction, resume=request.resume, name=request.name)


def pretrain(request: Any, loaded: Any = None, *, echo: Echo = None) -> Result:
    """``run_id``, ``first_loss``, ``final_loss``, ``validation_loss`` (nats per predicted token), ``tokens_per_s``,
    then the rest of the run's summary (``model_dir``, ``unigram_entropy``, ``speed``, ...); cancelled: ``steps``
    and ``checkpoint``. Errors: a family/objective pair that does not fit, a corpus that cannot be read."""
    from lm_workbench.pretrain.runs import run_recorded

    return run_result("pretrain", run_recorded(pretrain_spec(request), echo=echo), PRETRAIN_KEYS)


# -- finetune ------------------------------------------------------------------------------------------------------

def _training_settings(items: Any) -> dict[str, Any]:
    for item in items:
        key = str(item).partition("=")[0].strip()
        if key in SPEC_TRAINING_FIELDS:
            raise WorkbenchError(f"set {key} with --{key.replace('_', '-')} (or --epochs), not --train-setting")
    return _typed_training(items, SPEC_TRAINING_FIELDS)


REQUIRED = (("task", "--task"), ("train", "--train"), ("method", "--method"), ("out", "--out"))
RUN_SETTINGS = (("model", "MODEL"), ("task", "--task"), ("train", "--train"), ("validation", "--validation"),
                ("method", "--method"), ("epochs", "--epochs"), ("out", "--out"), ("lr", "--lr"),
                ("batch_size", "--batch-size"), ("max_length", "--max-length"), ("seed", "--seed"),
                ("text_columns", "--text-columns"), ("train_setting", "--train-setting"), ("loss", "--loss"),
                ("pooling", "--pooling"), ("margin", "--margin"), ("template", "--template"),
                ("beta", "--beta"), ("tsv_quoting", "--tsv-quoting"), ("keep_unseen_labels", "--keep-unseen-labels"))


def _resumed_spec(args: Any) -> Any:
    """``--resume RUN_OR_DIR``: the run's own spec; any other run setting given (on the line, or in the request) is
    refused."""
    from lm_workbench.finetune.train import resume_spec

    given = [flag for name, flag in RUN_SETTINGS if getattr(args, name, None) not in (None, "", [], ())]
    given += [f"--{dest[len(OPTION_PREFIX):].replace('__', '-').replace('_', '-')}" for dest, value in
              vars(args).items() if dest.startswith(OPTION_PREFIX) and value is not None]  # a parsed line's
    given += [f"method_settings {name}" for name, _ in getattr(args, "method_settings", ())]  # a request's
    if given:
        raise WorkbenchError(f"--resume continues the run with the settings it was started with; "
                             f"leave out {', '.join(given)}")
    return resume_spec(args.resume)


def finetune_spec(args: Any) -> Any:
    """The ``FineTuneSpec`` a ``finetune`` request (or parsed command line: its ``--<method>-<setting>`` options
    for the request's ``method_settings``) describes. Errors: a required setting missing (unless ``resume``), a
    method setting of another method or out of range, a run setting beside ``resume``."""
    from lm_workbench.finetune.method_settings import method_config_of, settings_of
    from lm_workbench.finetune.spec import FineTuneSpec

    if getattr(args, "resume", None):
        return _resumed_spec(args)
    missing = [flag for name, flag in REQUIRED if not getattr(args, name, None)]
    if missing:
        raise WorkbenchError(f"the following arguments are required: {', '.join(missing)} (or --resume RUN_OR_DIR)")
    # the method's settings, the one path of the CLI's --<method>-<setting> and the API's method_settings
    given = args.method_settings if hasattr(args, "method_settings") else settings_of(args)
    method_config = method_config_of(args.method, given)
    columns = [c.strip() for c in args.text_columns.split(",")] if args.text_columns else None
    defaults = FineTuneSpec(model="", task=args.task, train="", method=args.method, out_dir="")

    def chosen(name: str) -> Any:
        value = getattr(args, name)
        return getattr(defaults, name) if value is None else value

    return FineTuneSpec(model=args.model or "", task=args.task, train=str(Path(args.train)),
                        validation=str(Path(args.validation)) if args.validation else None, method=args.method,
                        out_dir=str(Path(args.out)), method_config=method_config, epochs=chosen("epochs"),
                        lr=args.lr, batch_size=chosen("batch_size"), max_length=chosen("max_length"),
                        seed=chosen("seed"), text_columns=columns, training=_training_settings(args.train_setting),
                        loss=args.loss, pooling=args.pooling, margin=args.margin, template=args.template or "auto",
                        beta=getattr(args, "beta", None), tsv_quoting=args.tsv_quoting or "auto",
                        keep_unseen_labels=bool(args.keep_unseen_labels))


def _verdict(summary: dict) -> str | None:
    """The headline (best and final validation value) when the evaluations say the run did not improve on the
    untrained model or ended below its start; None otherwise."""
    from lm_workbench.finetune.state import RunResult

    headline = RunResult(0, str(summary.get("method")), "", summary).best_text(str(summary.get("task")))
    return headline if ("no step beat" in headline or "ended below" in headline) else None


def finetune(request: Any, loaded: Any = None, *, echo: Echo = None, quiet: bool = True,
             on_note: Callable[[str], None] = note) -> Result:
    """``run_id``, ``trainable_parameters``, ``total_parameters``, ``validation`` (metric -> value; an undefined
    one null), then the rest of the run's ``summary.json`` (``method``, ``task``, ``steps``, ``out_dir``, ``notes``,
    per task ``sentence``, ``before_after``, ...). The model named by the request is loaded by the run itself (a
    resumed run's own). What was read is said on stderr (always when rows were skipped, else unless ``quiet``);
    ``on_note`` hears the notes said before training (the label rule's); a run that did not beat the untrained
    model is noted too. Errors: ``finetune_spec``'s, a data file that cannot be read, a task the model cannot do."""
    from lm_workbench.finetune.runs import run_recorded

    summary = run_recorded(finetune_spec(request), echo=echo, on_read=lambda report: say_read_report(report, quiet),
                           on_note=on_note)
    if summary is not None and not summary.get("cancelled"):
        verdict = _verdict(summary)
        if verdict:  # no step beat the untrained model, or the run ended below its start (issue 49.3)
            note(verdict)
    return run_result("finetune", summary, FINETUNE_KEYS)


# -- tuned-lens and sae train: a frozen model's activations -----------------------------------------------------------

def tuned_lens_spec(request: Any) -> Any:
    """The checked ``TunedLensSpec`` a ``tuned-lens`` request (or command line) describes."""
    from lm_workbench.lens.spec import CONFIG_FLAGS, TunedLensSpec

    settings = {key: getattr(request, key) for key in CONFIG_FLAGS if getattr(request, key, None) is not None}
    spec = TunedLensSpec(model=request.model, corpus=list(request.corpus), out_dir=request.out, settings=settings,
                         name=request.name)
    spec.check()
    return spec


def tuned_lens(request: Any, loaded: Any, *, spec: Any = None, echo: Echo = None) -> Result:
    """``run_id``, ``model``, ``out_dir``, ``steps``, ``layers``, ``kl`` (per layer: the logit lens's KL to the
    output, and the tuned lens's before and after training, nats) and ``mean_kl``; the model stays frozen. ``spec``:
    the request's, when the caller checked it before loading the model."""
    from lm_workbench.lens.runs import run_recorded

    spec = spec or tuned_lens_spec(request)
    return run_result("tuned-lens", run_recorded(spec, loaded, echo=echo), TUNED_LENS_KEYS)


def sae_train_spec(request: Any) -> Any:
    """The ``SaeTrainSpec`` of a ``sae train`` request (not yet checked: ``checked_sae_train``)."""
    from lm_workbench.sae.spec import SaeTrainSpec

    return SaeTrainSpec(model=request.model, corpus=request.corpus, out=request.out, site=request.site,
                        kind=request.kind, expansion=request.expansion, sparsity=request.sparsity,
                        steps=request.steps, batch=request.batch, lr=request.lr, buffer_tokens=request.buffer_tokens,
                        context=request.context, seed=request.seed, checkpoint_every=request.checkpoint_every,
                        resume=request.resume, name=request.name)


def checked_sae_train(spec: Any) -> Any:
    """``spec`` checked before any model loads. Errors: a setting out of range, a corpus that is not a file."""
    spec.check()
    if not Path(spec.corpus).is_file():
        raise WorkbenchError(f"corpus not found: {spec.corpus}")
    return spec


def sae_train(request: Any, loaded: Any, *, spec: Any = None, echo: Echo = None) -> Result:
    """The run's summary: ``run_id``, ``kind``, ``site``, ``d_in``, ``d_sae``, ``steps``, ``out_dir`` (SAELens v6
    layout), ``final`` (``mse``, ``l0``, ``dead_fraction``), ``scaling_factor``, ``buffer_tokens``,
    ``buffer_bytes`` and ``notes`` (each said on stderr). ``spec``: the request's, checked before the model
    loaded."""
    from lm_workbench.sae.runs import run_recorded

    summary = run_recorded(spec or checked_sae_train(sae_train_spec(request)), loaded, echo=echo)
    if summary is not None and not summary.get("cancelled"):
        for line in summary["notes"]:
            note(line)
    return run_result("sae train", summary)

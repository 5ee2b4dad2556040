"""The course's long commands computed for both front ends: ``course-models`` (the tiny BERT, GPT-2, BART, T5 and
ELMo models the lectures demonstrate with, pre-trained here; a family already built at this version is skipped)
and ``baseline tfidf-lr|bilstm`` (the lectures' baselines on a labelled sentence file, recorded as runs). The CLI's
handlers print the result; the Python API returns it. ``echo`` (the CLI's stderr lines) is optional: the Python
API's progress bar sees the steps. Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from lm_workbench.command_results.checks import note
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.engine.errors import WorkbenchError

Echo = Callable[[str], None] | None


def _chosen_families(families: Any) -> list[str] | None:
    """``--families`` as parsed (groups of names: ``bert,gpt2 t5``) or as names: the names, in order."""
    if not families:
        return None
    return [name for group in families for name in ([group] if isinstance(group, str) else group)]


def course_models(request: Any, loaded: Any = None, *, echo: Echo = None, say: Echo = None) -> Result:
    """``models`` (one per family built: ``family``, ``objective``, ``validation_loss``, ``unigram_entropy``,
    ``below_unigram_entropy``, ``elapsed_s``, ``model_dir``) and ``skipped`` (the families already built at this
    version, with their ``model_dir``; ``rebuild`` builds them again). ``say`` hears the plan (what is skipped, the
    estimate, "model k of n"); ``echo`` the training lines. Errors: an unreadable corpus, an output folder that
    cannot be written."""
    from lm_workbench.pretrain.course_estimate import estimate_family, estimate_total, format_duration
    from lm_workbench.pretrain.course_folders import plan_build
    from lm_workbench.pretrain.course_models import COURSE_SETTINGS, display_name, train_course_models

    said = say or (lambda line: None)
    chosen = _chosen_families(request.families) or list(COURSE_SETTINGS)
    plan = plan_build(chosen, Path(request.out) if request.out else None, rebuild=request.rebuild)
    if plan.skipped:
        said(plan.skipped_line("--rebuild builds them again"))
    if plan.build:
        seconds, _ = estimate_total(list(plan.build))
        said(f"building {len(plan.build)} course model(s): about {format_duration(seconds)} in all (an estimate)")

    def announce(k: int, n: int, family: str) -> None:
        said(f"model {k} of {n}: pre-training {display_name(family)}, {estimate_family(family).describe()}")

    results = train_course_models(corpus=request.corpus, out_root=request.out, families=list(plan.build),
                                  echo=echo, announce=announce) if plan.build else []
    skipped = [{"family": f, "model_dir": str(Path(folder) / "model")} for f, folder in plan.skipped.items()]
    return result_for("course-models", as_json({"models": results, "skipped": skipped}))


def _json_option(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise WorkbenchError(f"{flag} must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise WorkbenchError(f"{flag} must be a JSON object, not {text!r}")
    return value


def baseline_spec(request: Any) -> Any:
    """The ``TfidfSpec`` or ``BiLSTMSpec`` of a ``baseline tfidf-lr|bilstm`` request (by ``request.COMMAND``).
    Errors: ``vectorizer``/``classifier`` that are not JSON objects."""
    from lm_workbench.baselines.spec import BiLSTMSpec, TfidfSpec

    common = dict(train=request.train, validation=request.validation,
                  validation_fraction=request.validation_fraction, seed=request.seed,
                  text_column=request.text_column, label_column=request.label_column,
                  tsv_quoting=request.tsv_quoting, keep_unseen_labels=bool(request.keep_unseen_labels))
    if request.COMMAND == "baseline tfidf-lr":
        return TfidfSpec(**common, vectorizer=_json_option(request.vectorizer, "--vectorizer"),
                         classifier=_json_option(request.classifier, "--classifier"))
    return BiLSTMSpec(**common, **{k: getattr(request, k) for k in BiLSTMSpec.NET})


def baseline(request: Any, loaded: Any = None, *, echo: Echo = None) -> Result:
    """``baseline tfidf-lr`` (TF-IDF + logistic regression, scikit-learn) or ``baseline bilstm`` (a BiLSTM trained
    from scratch), by ``request.COMMAND``: ``accuracy``, ``majority`` (the majority class's accuracy on the same
    rows), ``trainable_parameters``, ``wall_s``, ``run_id`` and the rest of the run's summary. Errors:
    ``baseline_spec``'s, a file that cannot be read, a validation label training never shows (unless
    ``keep_unseen_labels``: the rows left out are said on stderr and in ``notes``)."""
    from lm_workbench.baselines.runs import BiLSTMRun, TfidfRun

    spec = baseline_spec(request)
    run = TfidfRun(spec) if request.COMMAND == "baseline tfidf-lr" else BiLSTMRun(spec)
    summary = run.in_process(echo=echo)
    for line in (summary or {}).get("notes") or ():  # rows left out (--keep-unseen-labels): said, not only kept
        note(line)
    return result_for(request.COMMAND, as_json(summary))

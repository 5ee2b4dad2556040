"""The Fine-tune view's metrics: what each method trains, the instruct page's data and trained tokens, and the
before/after of an instruct or preference run.

The form is the view's (``FineTuneState`` with the step's ``task``, ``epochs``, ``seed``, ``method``, ``lr``
and ``template``; the task's demo file and, where the demo has one, its held-out file). Counts are the bench's
(``lm_workbench.finetune.train.parameter_counts``: the method applied, nothing trained); the instruct page is
``lm_workbench.instruct.preview.build_preview`` with the model's tokenizer; a run is
``lm_workbench.finetune.train.run_finetune`` of the form's spec (the function the view's run process calls), into
a folder under the verify's work folder, not recorded in the run store. ``start: last_run`` starts a
preference run from the output of the preset's last earlier instruct or preference step, as the view starts
from its last run.
"""

from __future__ import annotations

import tempfile
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, metrics_of

TRAINING_SHOWS = ("before_after", "margin")


def _state(run: StepRun, method: str | None = None) -> Any:
    from lm_workbench.engine.finetune.demo import demo_path, demo_validation_path
    from lm_workbench.finetune.state import FineTuneState

    s, state = run.settings, FineTuneState()
    task = str(s.get("task", state.task))
    held = demo_validation_path(task)
    state.set_form(task=task, train=str(demo_path(task)), validation=str(held) if held is not None else "")
    if "epochs" in s:
        state.set_form(epochs=float(s["epochs"]))
    if "seed" in s:
        state.set_form(seed=int(s["seed"]))
    if method or "method" in s:
        state.set_form(method=str(method or s["method"]))
    if "lr" in s and method is None:
        state.set_form(lr=float(s["lr"]))
    if "template" in s:
        state.set_form(template=str(s["template"]))
    return state


def _counts(run: StepRun, method: str) -> tuple[int, int]:
    def build() -> tuple[int, int]:
        from lm_workbench.finetune.train import parameter_counts

        return parameter_counts(_state(run).spec(run.model, out_dir="", method=method))

    return run.once(("counts", method), build)


def _method(args: dict[str, Any]) -> str:
    return str(args["method"])


def trainable_share(run: StepRun, args: dict[str, Any]) -> float | None:
    trainable, total = _counts(run, _method(args))
    return finite(trainable / total) if total else None


def _preview(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.instruct.preview import build_preview

        state = _state(run)
        if state.task != "instruct":
            raise WorkbenchError("the instruct page shows the instruct task's data; this step's task is "
                                 f"{state.task}")
        family = str(getattr(run.loaded.info.family, "value", run.loaded.info.family))
        return build_preview(run.loaded.tokenizer, state.train, state.template, state.max_length, state.batch_size,
                             family == "encoder-decoder")

    return run.once("preview", build)


def categories(run: StepRun, args: dict[str, Any]) -> float:
    """Instruction categories among the examples the page shows."""
    return float(len({e.category for e in _preview(run).examples if e.category}))


def prompt_in_trained(run: StepRun, args: dict[str, Any]) -> float | None:
    """The share of the shown examples whose prompt text is among the trained tokens (0: the loss covers none)."""
    examples = _preview(run).examples
    hits = [e.prompt.strip() in "".join(t for t, on in zip(e.tokens, e.trained) if on) for e in examples]
    return sum(hits) / len(hits) if hits else None


def trained_share(run: StepRun, args: dict[str, Any]) -> float | None:
    p = _preview(run)
    return finite(p.trained_tokens / p.total_tokens) if p.total_tokens else None


def _trained(run: StepRun) -> dict[str, Any]:
    """The run's summary (trained once per step)."""

    def build() -> dict[str, Any]:
        from lm_workbench.finetune.train import run_finetune

        state = _state(run)
        if run.settings.get("show") not in TRAINING_SHOWS:
            raise WorkbenchError(f"this step trains nothing (its show is {run.settings.get('show')!r}; "
                                 f"{' and '.join(TRAINING_SHOWS)} train)")
        start = run.model
        if state.task == "preference" and run.settings.get("start") == "last_run":
            for before in reversed(run.earlier()):
                if before.view == "finetune" and before.settings.get("task") in ("instruct", "preference") \
                        and before.settings.get("show") in TRAINING_SHOWS:
                    start = _trained(before)["out_dir"]
                    break
        out = tempfile.mkdtemp(prefix=f"claim-step{run.index + 1}-", dir=run.workdir or None)
        return run_finetune(state.spec(start, out_dir=f"{out}/run"))

    return run.once("trained", build)


def _instruct_score(when: str) -> Any:
    def value(run: StepRun, args: dict[str, Any]) -> float | None:
        table = _trained(run).get("before_after") or {}
        if not table:
            raise WorkbenchError("the run has no before/after table (an instruct run has)")
        category = args.get("category")
        if category is None:
            return finite(table[when]["exact_match"])
        cats = table.get("categories") or {}
        if category not in cats:
            raise WorkbenchError(f"no held-out category {category!r} (categories: {', '.join(sorted(cats))})")
        return finite(cats[category][when]["exact_match"])

    return value


def _preference(when: str) -> Any:
    def value(run: StepRun, args: dict[str, Any]) -> float | None:
        summary = _trained(run)
        if not summary.get(when):
            raise WorkbenchError("the run has no held-out preference before/after (a preference run has)")
        return finite(summary[when]["preference_accuracy"])

    return value


METHOD = {"method": "a fine-tuning method's name (full, lora, ...)"}
CATEGORY = {"category": "a held-out category (reverse, repeat, first, plural, next, capital); absent: all"}
METRICS = metrics_of(
    "finetune",
    Metric("trainable_share", trainable_share, "trainable / total parameters of a method on this model", METHOD,
           ("method",)),
    Metric("trainable_parameters", lambda run, args: float(_counts(run, _method(args))[0]),
           "parameters a method trains on this model", METHOD, ("method",)),
    Metric("categories", categories, "instruction categories in the demonstration data"),
    Metric("prompt_in_trained", prompt_in_trained, "share of examples whose prompt the loss covers"),
    Metric("trained_share", trained_share, "trained tokens / all tokens of the training data"),
    Metric("exact_match_before", _instruct_score("before"), "held-out exact match of the base model", CATEGORY),
    Metric("exact_match_after", _instruct_score("after"), "held-out exact match of the tuned model", CATEGORY),
    Metric("preference_before", _preference("before"),
           "held-out pairs whose chosen answer the starting model prefers"),
    Metric("preference_after", _preference("after"), "held-out pairs whose chosen answer the tuned model prefers"),
)

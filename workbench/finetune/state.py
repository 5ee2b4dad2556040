"""What the Fine-tune tab shows, as a plain object: the form, the bench queue, and the results of runs.

The tab's widgets change a ``FineTuneState`` only through its methods and
repaint on its events, so a bench (queue methods, run them one after another,
read each run's ``summary.json``) can be driven and checked without Qt.

Events (arguments in brackets):
- ``form_changed`` []: a form value changed (task, files, method, its config, epochs ...).
- ``queue_changed`` []: the bench queue changed (methods ticked, a run started or ended).
- ``results_changed`` [run_id]: a run's summary (and predictions, confusion) came in.
- ``shift_changed`` []: the before/after layer shift was cleared or computed.
- ``sts_changed`` []: a sentence-embedding run's STS table before/after was cleared or computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.engine.finetune.names import LABELLED_TASKS, PRIMARY_METRIC, SENTENCE_TASK
from lm_workbench.engine.preference.names import DEFAULT_BETA
from lm_workbench.finetune.spec import TASKS, FineTuneSpec
from lm_workbench.observable import EventGroup
from lm_workbench.runs.summary import read_summary

BENCH_COLUMNS = ["method", "trainable_percent", "best_metric", "best_value", "wall_s", "peak_memory_mb",
                 "adapter_bytes", "run_id", "tokens_per_s", "training_memory_mb", "memory_kind", "checkpoint_bytes",
                 "forgetting", "forgetting_objective", "forgetting_note"]
# the metric the bench compares per task (the first one a summary has, if this one is missing)
MAIN_METRIC = PRIMARY_METRIC
LOWER_IS_BETTER = {"loss", "validation_loss"}


def validation_headline(name: str, history: list, best: float, *, lower_is_better: bool = False) -> str:
    """``validation accuracy: best 0.6750 (step 0), final 0.3250; no step beat the untrained model (step 0), and
    the run ended below its start`` from the run's evaluations ``history`` ([[step, {metric: value}], ...]); just
    ``best validation accuracy 0.6750`` when the history does not have the metric (an older run)."""
    points = [(int(step), float(values[name])) for step, values in history
              if isinstance(values, dict) and values.get(name) is not None]
    if not points:
        return f"best validation {name} {best:.4f}"
    better = (lambda a, b: a < b) if lower_is_better else (lambda a, b: a > b)
    best_step, best_value = points[0]
    for step, value in points[1:]:
        if better(value, best_value):
            best_step, best_value = step, value
    final_step, final = points[-1]
    text = f"validation {name}: best {best_value:.4f} (step {best_step}), final {final:.4f}"
    said = []
    start_step, start = points[0]
    if start_step == 0 and len(points) > 1:
        if best_step == 0:
            said.append("no step beat the untrained model (step 0)")
        if better(start, final):
            said.append(f"the run ended below its start ({start:.4f} → {final:.4f})")
    return text + ("; " + ", and ".join(said) if said else "")


@dataclass
class RunResult:
    """One finished run, read from its output folder."""

    run_id: int
    method: str
    out_dir: str
    summary: dict[str, Any]
    predictions: list[dict[str, Any]] = field(default_factory=list)
    confusion: dict[str, Any] | None = None

    def best(self, task: str) -> tuple[str, float | None]:
        """The task's main validation metric and its best value (None when the run has none)."""
        best = self.summary.get("best_validation") or self.summary.get("validation") or {}
        name = MAIN_METRIC.get(task, "")
        if name not in best:
            name = next((k for k in best if k not in LOWER_IS_BETTER), name)
        value = best.get(name)
        return name, (float(value) if value is not None else None)

    def best_text(self, task: str) -> str:
        """The run's headline: ``validation f1: best 0.8123 (step 40), final 0.8010``, with what the evaluations
        say against the untrained model (step 0: "no step beat the untrained model", "it ended below its start"),
        or ``validation mcc not defined (every gold label is 'pos'; …)``."""
        from lm_workbench.engine.maths.undefined import shown

        name, value = self.best(task)
        if not name:
            return "no validation metric"
        notes = self.summary.get("notes") or []
        if value is None:
            return f"best validation {name} {shown(value, name, notes)}"
        return validation_headline(name, self.summary.get("history") or [], float(value),
                                   lower_is_better=name in LOWER_IS_BETTER)

    def note_lines(self) -> list[str]:
        """The run's notes (the label rule's, what was dropped, each metric that is not defined and why)."""
        return [str(n) for n in self.summary.get("notes") or []]

    def data_lines(self) -> list[str]:
        """``train.tsv: read 1,498 rows, skipped 2 (first: line 17: ...)``, one per data file the run read."""
        from lm_workbench.engine.data.rows import ReadReport

        lines = []
        for role, read in (self.summary.get("data") or {}).items():
            source = (self.summary.get("spec") or {}).get(role) or role
            lines.append(f"{Path(str(source)).name}: {ReadReport.from_json(str(source), read).summary()}")
        return lines

    def preference_lines(self) -> list[str]:
        """A preference run's held-out results in two short lines (nothing for other tasks): how often the model
        itself gives the chosen answer the higher probability before and after, DPO's reward accuracy and margin
        (relative to the reference), then the same choice per category."""
        before, after = self.summary.get("before"), self.summary.get("after")
        validation = self.summary.get("validation") or {}
        if not isinstance(before, dict) or not isinstance(after, dict):
            return []
        line = (f"Held-out pairs: chosen answer preferred {_percent(before.get('preference_accuracy'))} before → "
                f"{_percent(after.get('preference_accuracy'))} after by the model itself (mean log-probability margin "
                f"{_number(before.get('logp_margin'))} → {_number(after.get('logp_margin'))})")
        if validation.get("preference_accuracy") is not None:
            line += (f"; DPO reward accuracy (the curve: moved towards the chosen answer, relative to the "
                     f"start) {_percent(validation.get('preference_accuracy'))}, reward margin "
                     f"{_number(validation.get('reward_margin'))}, loss {_number(validation.get('loss'))}")
        lines = [line + "."]
        categories = after.get("categories") or {}
        if categories:
            old = before.get("categories") or {}
            lines.append("By category: " + "; ".join(
                f"{name} {_percent((old.get(name) or {}).get('preference_accuracy'))} → "
                f"{_percent(values.get('preference_accuracy'))}" for name, values in categories.items()) + ".")
        return lines

    def bench_row(self, task: str) -> dict[str, Any]:
        name, value = self.best(task)
        s = self.summary
        return {"method": self.method, "trainable_percent": s.get("trainable_percent"), "best_metric": name,
                "best_value": value, "wall_s": s.get("wall_s"), "peak_memory_mb": s.get("peak_memory_mb"),
                "adapter_bytes": s.get("adapter_bytes"), "run_id": self.run_id, **bench_measures(s)}


def bench_measures(summary: dict[str, Any]) -> dict[str, Any]:
    """The bench's cost columns from a run's summary (``lm_workbench.finetune.outputs.bench_columns``): tokens/s,
    training memory and what kind of number it is, checkpoint bytes, forgetting (Δ loss) and what it means."""
    forgetting = summary.get("forgetting") or {}
    note = forgetting.get("note") or ""
    if forgetting.get("base_untouched_without_adapter") and forgetting.get("delta") is not None:
        note += "; 0 once the adapter is removed (the base weights are untouched)"
    return {"tokens_per_s": summary.get("tokens_per_s"), "training_memory_mb": summary.get("training_memory_mb"),
            "memory_kind": summary.get("memory_kind") or "",
            "checkpoint_bytes": summary.get("checkpoint_bytes", summary.get("adapter_bytes")),
            "forgetting": forgetting.get("delta"), "forgetting_objective": forgetting.get("objective") or "",
            "forgetting_note": note}


def _percent(value: Any) -> str:
    return f"{100 * float(value):.0f}%" if isinstance(value, (int, float)) else "?"


def _number(value: Any) -> str:
    return f"{float(value):.3g}" if isinstance(value, (int, float)) else "?"


def errors_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validation predictions, wrong ones first, each group by falling confidence."""
    return sorted(rows, key=lambda r: (bool(r.get("correct")), -float(r.get("confidence") or 0.0)))


def read_result(run_id: int, method: str, out_dir: str | Path) -> RunResult:
    """A finished run's ``summary.json``, ``validation_predictions.jsonl`` and ``confusion.json``."""
    folder = Path(out_dir)
    summary = read_summary(folder)
    predictions = []
    pred_file = folder / "validation_predictions.jsonl"
    if pred_file.is_file():
        predictions = [json.loads(line) for line in pred_file.read_text(encoding="utf-8").splitlines()
                       if line.strip()]
    confusion_file = folder / "confusion.json"
    confusion = json.loads(confusion_file.read_text(encoding="utf-8")) if confusion_file.is_file() else None
    return RunResult(run_id, method, str(folder), summary, predictions, confusion)


class FineTuneState:
    def __init__(self) -> None:
        self.events = EventGroup("form_changed", "queue_changed", "results_changed", "shift_changed", "sts_changed")
        self.task = "seq-cls"
        self.train = ""
        self.validation = ""
        self.method = "lora"
        self.method_config: dict[str, str] = {}
        self.lr: float | None = None  # None: the method's default
        self.epochs = 3.0
        self.batch_size = 16
        self.max_length = 128
        self.seed = 0
        self.template = "auto"  # instruct: the chat template (auto, plain or a file)
        self.keep_unseen_labels = False  # classification: leave out validation labels training lacks (else refused)
        self.beta = DEFAULT_BETA  # preference tuning's β (used by --task preference only)
        self.training: dict[str, Any] = {}  # other TrainingConfig fields (threads, log_every ...)
        self.bench: list[str] = []  # methods ticked for the bench
        self.queue: list[str] = []  # bench methods still to run (the running one is not in it)
        self.running: dict[int, str] = {}  # run id -> method, of runs submitted and not yet read
        self.results: dict[int, RunResult] = {}  # in the order they finished
        self.counts: dict[str, tuple[int, int]] = {}  # method -> (trainable, total) counted for the bench
        self.shift: list[tuple[int, float, float]] = []  # (layer, cka, mean cosine) of the last before/after
        self.shift_run_id: int | None = None
        # the sentence-embedding task (issue 32): None = by the data (loss), mean (pooling), ε = 1 (margin)
        self.loss: str | None = None
        self.pooling: str | None = None
        self.margin: float | None = None
        self.sts: list[tuple[int, float, float]] = []  # (layer, base rho, trained rho) of the last sentence run
        self.sts_run_id: int | None = None

    # -- the form ------------------------------------------------------------------------------------
    def set_form(self, **values: Any) -> None:
        """Change form fields by name (task, train, validation, method, method_config, lr, epochs ...)."""
        for name, value in values.items():
            if not hasattr(self, name) or name in ("events", "bench", "queue", "running", "results", "shift",
                                                   "counts", "sts", "sts_run_id"):
                raise ValueError(f"unknown form field {name!r}")
            if name == "task" and value not in TASKS:
                raise ValueError(f"task must be one of {TASKS}")
            setattr(self, name, value)
            if name == "task":
                self.counts = {}  # the head, and so the counts, follow the task
        self.events.form_changed.emit()

    def spec(self, model: str, out_dir: str, method: str | None = None) -> FineTuneSpec:
        """The form as a ``FineTuneSpec``; another ``method`` (a bench run) takes its own defaults and lr."""
        same = method is None or method == self.method
        return FineTuneSpec(
            model=model, task=self.task, train=self.train, method=method or self.method, out_dir=out_dir,
            validation=self.validation or None, method_config=dict(self.method_config) if same else {},
            epochs=float(self.epochs), lr=self.lr if same else None, batch_size=int(self.batch_size),
            max_length=int(self.max_length), seed=int(self.seed), training=dict(self.training),
            template=(self.template or "auto") if self.task == "instruct" else "auto",
            beta=float(self.beta) if self.task == "preference" else None,
            keep_unseen_labels=bool(self.keep_unseen_labels) and self.task in LABELLED_TASKS, **self.sentence_options())

    def sentence_options(self) -> dict[str, Any]:
        """The spec's loss, pooling and margin: set for the sentence task only (the margin for triplets only)."""
        if self.task != SENTENCE_TASK:
            return {}
        margin = self.margin if self.loss in (None, "triplet") else None
        return {"loss": self.loss, "pooling": self.pooling, "margin": margin}

    # -- the bench -----------------------------------------------------------------------------------
    def set_bench(self, methods: list[str]) -> None:
        self.bench = list(dict.fromkeys(methods))
        self.events.queue_changed.emit()

    def start_bench(self) -> list[str]:
        """Queue the ticked methods (clearing earlier bench results); returns the queue."""
        self.queue = list(self.bench)
        self.results = {}
        self.events.queue_changed.emit()
        self.events.results_changed.emit(None)
        return list(self.queue)

    def next_in_queue(self) -> str | None:
        method = self.queue.pop(0) if self.queue else None
        self.events.queue_changed.emit()
        return method

    def clear_queue(self) -> None:
        self.queue = []
        self.events.queue_changed.emit()

    def submitted(self, run_id: int, method: str) -> None:
        self.running[run_id] = method
        self.events.queue_changed.emit()

    def ended(self, run_id: int) -> None:
        self.running.pop(run_id, None)
        self.events.queue_changed.emit()

    def add_result(self, result: RunResult) -> None:
        self.running.pop(result.run_id, None)
        self.results[result.run_id] = result
        self.events.results_changed.emit(result.run_id)

    def set_counts(self, counts: dict[str, tuple[int, int]]) -> None:
        """Trainable and total parameters of methods counted without training (shown before their runs)."""
        self.counts = {name: (int(t), int(n)) for name, (t, n) in counts.items()}
        self.events.results_changed.emit(None)

    def bench_rows(self) -> list[dict[str, Any]]:
        """A row per finished run, then a row per counted method of the bench that has no run yet (only its
        trainable share is known)."""
        rows = [r.bench_row(self.task) for r in self.results.values()]
        done = {r["method"] for r in rows}
        for name in self.bench:
            if name in self.counts and name not in done:
                trainable, total = self.counts[name]
                rows.append({"method": name, "trainable_percent": 100.0 * trainable / max(1, total),
                             "best_metric": "", "best_value": None, "wall_s": None, "peak_memory_mb": None,
                             "adapter_bytes": None, "run_id": None, **bench_measures({})})
        return rows

    def has_bench_results(self, methods: list[str]) -> bool:
        """Whether every one of ``methods`` has a finished run on the bench."""
        return set(methods) <= {r.method for r in self.results.values()}

    def last_result(self) -> RunResult | None:
        return next(reversed(self.results.values()), None) if self.results else None

    # -- before / after ------------------------------------------------------------------------------
    def set_sts(self, run_id: int | None, rows: list[tuple[int, float, float]]) -> None:
        """A sentence run's STS table: (layer, the base's rho, the trained encoder's rho) per layer."""
        self.sts_run_id, self.sts = run_id, [tuple(r) for r in rows]
        self.events.sts_changed.emit()

    def set_shift(self, run_id: int | None, rows: list[tuple[int, float, float]]) -> None:
        self.shift_run_id, self.shift = run_id, [tuple(r) for r in rows]
        self.events.shift_changed.emit()

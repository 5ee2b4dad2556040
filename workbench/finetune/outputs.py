"""Writing a finished fine-tuning run's output folder (the layout ``lm_workbench.finetune`` documents).

A write that fails (a full disk, a folder made read-only) removes what it half wrote (the adapter folder,
the predictions) and raises an ``OSError`` naming the file; the checkpoints beside them stay.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import written
from lm_workbench.engine.finetune.names import SENTENCE_TASK
from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER, MANIFEST_FILE, write_manifest
from lm_workbench.files import remove_partial
from lm_workbench.runs.summary import SUMMARY_FILE, finite, write_json_atomic

PREDICTIONS_FILE = "validation_predictions.jsonl"
CONFUSION_FILE = "confusion.json"
ST_FOLDER = "model"  # a sentence-embedding run's sentence-transformers folder (lm_workbench.engine.models.sources: a run's model)
FOLDS_INTO_WEIGHTS = ("full", "bitfit")  # and every method that can merge (LoRA)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def checkpoint_bytes(out_dir: Path) -> int:
    """The size on disk of what ``predict`` opens: the saved adapter folder (the whole model for full
    fine-tuning) and the manifest beside it; the predictions and the summary are not part of it."""
    return folder_bytes(out_dir / ADAPTER_FOLDER) + (out_dir / MANIFEST_FILE).stat().st_size


def save_outputs(*, spec: Any, out_dir: Path, base_folder: Path, method: Any, method_config: Any, data: Any,
                 tokenizer: Any, result: Any, lr: float, run_id: int | None,
                 forgetting: dict[str, Any] | None = None) -> dict[str, Any]:
    """The adapter, the manifest, the predictions, the confusion matrix and ``summary.json``; returns the summary."""
    adapter = out_dir / ADAPTER_FOLDER
    shutil.rmtree(adapter, ignore_errors=True)  # an earlier run's files in the same folder must not linger
    (out_dir / CONFUSION_FILE).unlink(missing_ok=True)
    report = result.report
    try:
        adapter.mkdir(parents=True)
        written(adapter, lambda: method.save(result.model, adapter))
        if (adapter / "config.json").is_file():  # a whole model (full fine-tuning): its tokenizer goes with it
            written(adapter, lambda: tokenizer.save_pretrained(adapter))
        config_dict = dataclasses.asdict(method_config) if dataclasses.is_dataclass(method_config) else {}
        sentence = save_sentence_model(out_dir, method, result.model, tokenizer, data.sentence, spec.max_length) \
            if spec.task == SENTENCE_TASK else {}
        written(out_dir, lambda: write_manifest(
            out_dir, base_model=str(base_folder), task=spec.task, method=spec.method, method_config=config_dict,
            labels=data.labels, text_columns=spec.text_columns, max_length=spec.max_length, run_id=run_id,
            **_no_answer(spec.task, data), **sentence, **_chat_template(data)))
        written(out_dir / PREDICTIONS_FILE, lambda: _write_predictions(out_dir / PREDICTIONS_FILE, report.rows))
        if report.confusion is not None:
            write_json_atomic(out_dir / CONFUSION_FILE, report.confusion)
    except BaseException:
        for partial in (adapter, out_dir / MANIFEST_FILE, out_dir / PREDICTIONS_FILE, out_dir / CONFUSION_FILE,
                        out_dir / ST_FOLDER):
            remove_partial(partial)
        raise
    summary: dict[str, Any] = {
        "run_id": run_id,
        "task": spec.task,
        "method": spec.method,
        "trainable_parameters": int(result.trainable_parameters),
        "total_parameters": int(result.total_parameters),
        "trainable_percent": result.trainable_percent,
        "validation": {k: finite(v) for k, v in result.validation.items()},
        "best_validation": {k: finite(v) for k, v in result.best_validation.items()},
        "wall_s": round(float(result.wall_s), 3),
        "peak_memory_mb": round(float(result.peak_memory_mb), 1),
        "adapter_bytes": folder_bytes(adapter),
        **bench_columns(result, out_dir, method, forgetting),
        "steps": int(result.steps),
        "device": result.device,
        "first_loss": finite(result.first_loss),
        "final_loss": finite(result.final_loss),
        "validation_loss": finite(result.validation_loss),
        "history": [[step, {k: finite(v) for k, v in values.items()}] for step, values in result.history],
        "lr": lr,
        "train_examples": len(data.train),
        "validation_examples": len(data.validation),
        "rows_scored": int(report.rows_scored),  # the validation examples the metrics were computed on
        **_reads(data),
        "base_model": str(base_folder),
        "out_dir": str(out_dir),
        "adapter_dir": str(adapter),
        "spec": spec.to_dict(),
    }
    if spec.task == SENTENCE_TASK:
        summary["sentence"] = {**data.sentence.as_json(), "sentence_transformers": sentence["sentence_transformers"],
                               "sentence_transformers_note": sentence["sentence_transformers_note"]}
    if spec.task == "instruct":  # token counts, before/after, per category, the template used
        summary.update(result.extra)
        summary["validation_categories"] = summary.pop("categories", {})
        summary["chat_template"] = _chat_template(data)["chat_template"]
    elif (getattr(result, "extra", None) or {}).get("notes"):  # rows longer than the max length: cut and counted
        summary["notes"] = list(summary.get("notes", [])) + list(result.extra["notes"])
        summary["rows_cut"] = result.extra["rows_cut"]
    if report.squad is not None:  # QA: the official SQuAD 2.0 scorer's result (fractions, totals)
        summary["squad"] = {k: finite(v) if isinstance(v, float) else v for k, v in report.squad.items()}
    summary.update(getattr(result, "summary_extra", {}))  # preference: train, before, after (lm_workbench.engine.preference.train)
    summary["notes"] = run_notes(data, result) + [n for n in summary.get("notes", []) if isinstance(n, str)]
    summary["summary_path"] = str(out_dir / SUMMARY_FILE)
    write_json_atomic(out_dir / SUMMARY_FILE, summary)
    return summary


def run_notes(data: Any, result: Any) -> list[str]:
    """The summary's ``notes``: what the label rule did with the data, what the sentence task dropped, and each
    validation number that is not defined and why (``lm_workbench.engine.maths.undefined``)."""
    from lm_workbench.engine.maths import undefined

    notes = list(getattr(data, "notes", []))
    notes += list(getattr(getattr(data, "sentence", None), "counted", []))  # in-batch negatives' dropped batches
    report = getattr(result, "report", None)
    notes += [n for n in getattr(report, "notes", []) if n not in notes]
    if undefined.value(getattr(result, "validation_loss", None)) is None and "validation_loss" not in \
            undefined.reasons(notes):
        notes.append(undefined.note("validation_loss", "no held-out example could be scored with the training loss"))
    return notes


def bench_columns(result: Any, out_dir: Path, method: Any, forgetting: dict[str, Any] | None) -> dict[str, Any]:
    """What the bench compares methods by, besides the metric: checkpoint bytes (``checkpoint_bytes``: what
    ``predict`` opens), training memory (CUDA's peak, or the CPU estimate, labelled), tokens/s and forgetting
    (``lm_workbench.engine.finetune.footprint``, ``.forgetting``)."""
    from lm_workbench.engine.finetune.footprint import CUDA_PEAK, memory_kind

    kind = memory_kind(result.device)
    memory = result.peak_memory_mb if kind == CUDA_PEAK else getattr(result, "state_bytes", 0) / 2**20
    untouched = bool(getattr(getattr(method, "attachment", None), "adds_modules", True))
    return {"checkpoint_bytes": checkpoint_bytes(out_dir), "training_memory_mb": round(float(memory), 3),
            "memory_kind": kind, "tokens_per_s": round(float(getattr(result, "tokens_per_s", 0.0)), 1),
            "tokens_seen": int(getattr(result, "tokens_seen", 0)),
            "forgetting": {**(forgetting or {}), "base_untouched_without_adapter": untouched}}
def save_sentence_model(out_dir: Path, method: Any, model: Any, tokenizer: Any, setup: Any,
                        max_length: int) -> dict[str, Any]:
    """A sentence-embedding run's sentence-transformers folder (``out_dir/model``, which also makes ``out_dir``
    open as that model) when the method folds into the weights (full, BitFit, LoRA merged); the manifest's
    ``pooling``, ``loss``, ``margin`` and where the folder is (or why there is none)."""
    import copy

    from lm_workbench.engine.sentence.st_folder import write_st_folder

    folder = out_dir / ST_FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    extra = {"pooling": setup.pooling, "loss": setup.loss, "margin": setup.margin}
    if method.name in FOLDS_INTO_WEIGHTS or getattr(method, "can_merge", False):
        plain = method.merge(copy.deepcopy(model)) if getattr(method, "can_merge", False) else model
        written(folder, lambda: write_st_folder(plain, tokenizer, folder, pooling=setup.pooling,
                                                max_length=max_length))
        return {**extra, "sentence_transformers": str(folder),
                "sentence_transformers_note": f"{folder} opens with sentence_transformers.SentenceTransformer"}
    note = (f"the {method.name} method adds modules or inputs that sentence-transformers cannot load: this "
            f"folder opens in the workbench (STS, Retrieval, Compare, predict), not in sentence-transformers")
    return {**extra, "sentence_transformers": None, "sentence_transformers_note": note}


def _reads(data: Any) -> dict[str, Any]:
    """``rows_read`` / ``rows_skipped`` over the data files, and each file's report under ``data``."""
    reads = {role: r.as_json() for role, r in getattr(data, "reads", {}).items() if r is not None}
    return {"rows_read": sum(r["rows_read"] for r in reads.values()),
            "rows_skipped": sum(r["rows_skipped"] for r in reads.values()), "data": reads}


def _no_answer(task: str, data: Any) -> dict[str, Any]:
    """The manifest's ``no_answer: true`` for a QA model trained on SQuAD 2.0 data (``predict`` may then say
    "no answer"); nothing otherwise, so SQuAD 1.1 manifests are as before."""
    from lm_workbench.engine.data.squad import any_unanswerable

    if task == "qa" and (any_unanswerable(data.train) or any_unanswerable(data.validation)):
        return {"no_answer": True}
    return {}


def _chat_template(data: Any) -> dict[str, Any]:
    """The manifest's ``chat_template`` (``source``, ``text``) of an instruct run: ``generate --chat``,
    ``predict`` and the before/after table format prompts with it; nothing for the other tasks."""
    template = getattr(data, "template", None)
    if template is None:
        return {}
    return {"chat_template": {"source": template.source, "text": template.text, "note": template.note}}


def _write_predictions(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, default=str) + "\n")

"""The baselines as recorded runs (kinds ``tfidf-lr`` and ``bilstm``), through the one recorder
(``lm_workbench.runs.recorder.LongRun``): the CLI's ``lm-workbench baseline ...``, the long-run lane (the Runs
tab's "Run again") and a study's cells run them the same way. A finished run logs ``accuracy, majority,
trainable_parameters, wall_s, train_size, test_size`` (and ``feature_count``) at its last step; the BiLSTM logs
its training ``loss`` per epoch on the way.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from lm_workbench.baselines.spec import BaselineSpec, BiLSTMSpec, TfidfSpec
from lm_workbench.runs.kinds import RunKind, spec_command
from lm_workbench.runs.recorder import LongRun

TFIDF = RunKind(kind="tfidf-lr", target="lm_workbench.baselines.runs:tfidf_lane_job",
                title="TF-IDF + logistic regression", command=spec_command(TfidfSpec))
BILSTM = RunKind(kind="bilstm", target="lm_workbench.baselines.runs:bilstm_lane_job",
                 title="BiLSTM from scratch", command=spec_command(BiLSTMSpec))


def resolve_data(path: str) -> str:
    """``demo`` is the shipped sentiment set; anything else a path as given."""
    if path == "demo":
        from lm_workbench.engine.finetune.demo import demo_path

        return str(demo_path("seq-cls"))
    return path


def read_split(spec: BaselineSpec) -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    """(train texts, train labels, test texts, test labels, notes) by the label rule
    (``lm_workbench.engine.data.labels``), as fine-tuning and probing split: ``validation`` when named (a label it
    has that training lacks is refused in one line, or left out with ``keep_unseen_labels``, said), else a
    stratified held-out share of the training rows (seeded); training needs two classes."""
    from lm_workbench.engine.data.labels import require_classes, stratified_holdout, unseen_labels
    from lm_workbench.engine.probing.readers import read_sentence_task

    def read(path: str) -> Any:
        return read_sentence_task(resolve_data(path), spec.text_column, spec.label_column,
                                  tsv_quoting=spec.tsv_quoting)

    train = read(spec.train)
    texts, labels = list(train.texts), list(train.labels)
    if spec.validation:
        test = read(spec.validation)
        require_classes(labels)
        check = unseen_labels(labels, list(test.labels), split="validation", keep=spec.keep_unseen_labels)
        return (texts, labels, [test.texts[i] for i in check.kept], [test.labels[i] for i in check.kept],
                list(check.notes))
    split = stratified_holdout(labels, spec.validation_fraction, spec.seed)
    (xs, tx), (ys, ty) = split.take(texts), split.take(labels)
    require_classes(ys)
    return xs, ys, tx, ty, list(split.notes)


class BaselineRun(LongRun):
    """The shared part: columns, reading, final metrics, provenance (data file hash, scikit-learn's version)."""

    def columns(self) -> dict[str, Any]:
        return {"name": f"{self.kind} {Path(self.spec.train).name}", "model": "(none: from scratch)",
                "method": self.kind}

    def preflight(self) -> None:
        self.spec.check()
        for path in (self.spec.train, self.spec.validation):
            if path and not Path(resolve_data(path)).is_file():
                from lm_workbench.engine.errors import WorkbenchError

                raise WorkbenchError(f"data file not found: {path}")

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        return {k: v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

    def last_step(self, summary: dict[str, Any]) -> int:
        return int(summary.get("steps", 1) or 1)

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        return {**summary, "run_id": run_id}

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any]:
        from lm_workbench.runs.provenance import collect_provenance

        files = [resolve_data(p) for p in (self.spec.train, self.spec.validation) if p]
        prov = collect_provenance(device="cpu", dtype="float32", seed=self.spec.seed, data_files=files,
                                  cli_command=self.spec.cli_command())
        try:
            from importlib.metadata import version

            prov["versions"]["scikit-learn"] = version("scikit-learn")
        except Exception:  # noqa: BLE001 - a version we cannot read is left out
            pass
        return prov


class TfidfRun(BaselineRun):
    kind = TFIDF.kind
    Spec = TfidfSpec

    def body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.engine.baselines.tfidf import fit_tfidf_lr

        ctx.store.set_total_steps(ctx.run_id, 1)
        xs, ys, tx, ty, notes = read_split(self.spec)
        ctx.check()
        result = fit_tfidf_lr(xs, ys, tx, ty, vectorizer=self.spec.vectorizer, classifier=self.spec.classifier,
                              seed=self.spec.seed)
        out = result.to_json()
        return {**out, "notes": notes + list(out.get("notes") or []), "steps": 1}


class BiLSTMRun(BaselineRun):
    kind = BILSTM.kind
    Spec = BiLSTMSpec

    def body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.engine.baselines.bilstm import train_bilstm
        from lm_workbench.engine.progress import drive

        ctx.store.set_total_steps(ctx.run_id, int(self.spec.epochs))
        xs, ys, tx, ty, notes = read_split(self.spec)
        result = drive(train_bilstm(xs, ys, tx, ty, config=self.spec.config(), seed=self.spec.seed, cancel=ctx),
                       report)
        for epoch, loss in result.curve:
            ctx.log_dict(epoch, {"loss": loss})
        out = result.to_json()
        return {**out, "notes": notes + list(out.get("notes") or []), "steps": int(self.spec.epochs)}


tfidf_lane_job = TfidfRun.lane_job
bilstm_lane_job = BiLSTMRun.lane_job

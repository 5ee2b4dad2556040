"""The Fine-tune tab's short jobs (``fn(cancel)`` for the view's job bridge): parameter counts, the
before/after layer shift of a finished run, merging a LoRA run into its base weights, and a sentence-embedding
run's STS table before and after (Spearman's rho per layer of the base and of the trained encoder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def shift_job(loaded: Any, out_dir: str, texts: list[str], max_length: int):
    """Before/after: ``fn(cancel) -> [(layer, cka, mean cosine)]`` for the run in ``out_dir``."""

    def job(cancel: Any):
        from lm_workbench.engine.finetune.layer_shift import layer_shift
        from lm_workbench.finetune.train import open_output

        tuned = open_output(out_dir).model
        cancel.check()
        rows = layer_shift(loaded.base_model, tuned, loaded.tokenizer, texts, max_length, cancel=cancel)
        return [(r.layer, r.cka, r.mean_cosine) for r in rows]

    return job


def merge_job(out_dir: str):
    """Merge a LoRA run into the base weights (a ``full`` output folder beside it); returns its model folder."""

    def job(cancel: Any):
        from lm_workbench.finetune.train import merge_output

        merged = merge_output(out_dir, f"{out_dir}-merged")
        return str(Path(merged) / "adapter")

    return job


def bench_count_job(specs: list[Any]):
    """``fn(cancel) -> {method: (trainable, total)}`` for each spec (one model built per method)."""

    def job(cancel: Any):
        from lm_workbench.engine.progress import Progress
        from lm_workbench.finetune.train import parameter_counts

        counts = {}
        for i, spec in enumerate(specs):
            cancel.check()
            counts[spec.method] = parameter_counts(spec)
            yield Progress(i + 1, len(specs), f"counted {spec.method}")
        return counts

    return job


def count_job(spec: Any):
    """The job behind the trainable-parameter line: ``fn(cancel) -> ParameterCount`` for ``spec``."""

    def job(cancel: Any):
        from lm_workbench.engine.finetune.methods.counting import ParameterCount
        from lm_workbench.finetune.train import parameter_counts

        trainable, total = parameter_counts(spec)
        return ParameterCount(trainable=trainable, total=total)

    return job


def sts_before_after_job(loaded: Any, out_dir: str, pairs: list[tuple[str, str, float]], pooling: str):
    """``fn(cancel) -> (before, after)``: the STS sweep (``lm_workbench.engine.probing.sweep.sts_by_layer``) on ``pairs`` of the
    loaded base with the run's ``pooling`` and of the run's encoder (opened from ``out_dir``) with its own pooling
    (``model``: what it trained); two ``StsResult``s, layer by layer."""

    def job(cancel: Any):
        from lm_workbench.engine.probing.readers import StsPairs
        from lm_workbench.engine.probing.sweep import sts_by_layer
        from lm_workbench.engine.progress import Partial, Progress, relay
        from lm_workbench.models.loader import load_model

        data = StsPairs([a for a, _, _ in pairs], [b for _, b, _ in pairs], [s for _, _, s in pairs], out_dir)
        quiet = lambda item: None if isinstance(item, Partial) else item  # noqa: E731
        yield Progress(0, 3, "STS of the base model")
        before = yield from relay(sts_by_layer(loaded, data, pooling=pooling, cancel=cancel), quiet)
        yield Progress(1, 3, "loading the trained encoder")
        tuned = load_model(out_dir)
        cancel.check()
        yield Progress(2, 3, "STS of the trained encoder")
        after = yield from relay(sts_by_layer(tuned, data, pooling="model", cancel=cancel), quiet)
        return before, after

    return job

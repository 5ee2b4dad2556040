"""What the Heads tab runs on the worker thread: direct logit attribution (one pass) and the sweep that ablates
every head (a job: progress per row, the rows so far, Cancel)."""

from __future__ import annotations

from typing import Any, Generator

from engine.progress import CancelToken


def dla_job(loaded: Any, request: dict, cancel: CancelToken) -> Any:
    """``engine.heads.dla.direct_logit_attribution`` of ``request`` (text, target, contrast, output_position); a
    post-norm model's one-line refusal comes back as the result's ``note`` instead (``("note", line)``)."""
    from engine.heads.anatomy import anatomy, not_a_sum_note
    from engine.heads.dla import direct_logit_attribution

    cancel.check()
    if not anatomy(loaded, "direct logit attribution").pre_norm:
        return "note", not_a_sum_note(loaded)
    return "dla", direct_logit_attribution(loaded, request["text"], request.get("target"), request.get("contrast"),
                                           request.get("output_position", 0))


def sweep_job(loaded: Any, request: dict, cancel: CancelToken) -> Generator[Any, None, Any]:
    """``engine.heads.ablation.head_sweep_job`` of ``request`` (text, target, contrast, how, corpus file)."""
    from engine.heads.ablation import head_sweep_job
    from workbench.heads.corpus_file import read_corpus

    corpus = read_corpus(request["corpus"]) if request.get("how", "zero") != "zero" else None
    return (yield from head_sweep_job(loaded, request["text"], request.get("target"), request.get("contrast"),
                                        how=request.get("how", "zero"), corpus=corpus,
                                        output_position=request.get("output_position", 0), cancel=cancel))

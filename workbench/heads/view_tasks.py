"""What the Heads tab runs on the worker thread: direct logit attribution (one pass) and the sweep that ablates
every head (a job: progress per row, the rows so far, Cancel)."""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.progress import CancelToken
from lm_workbench.requests import AblateRequest, DlaRequest


def dla_job(loaded: Any, request: DlaRequest | AblateRequest, cancel: CancelToken) -> Any:
    """``("dla", lm_workbench.engine.heads.dla.direct_logit_attribution(...))`` of ``request`` (text, target, contrast,
    output_position), or ``("note", line)``: a post-norm model's one line saying why there is no split (its
    heads can still be ablated); other refusals (no LM head, a target of two tokens) are raised."""
    from lm_workbench.engine.heads.anatomy import NotASum
    from lm_workbench.engine.heads.dla import direct_logit_attribution

    cancel.check()
    try:
        return "dla", direct_logit_attribution(loaded, request.text, request.target, request.contrast,
                                               request.output_position)
    except NotASum as exc:
        return "note", str(exc)


def sweep_job(loaded: Any, request: AblateRequest, cancel: CancelToken) -> Generator[Any, None, Any]:
    """``lm_workbench.engine.heads.ablation.head_sweep_job`` of ``request`` (text, target, contrast, how, corpus file)."""
    from lm_workbench.engine.heads.ablation import head_sweep_job
    from lm_workbench.heads.corpus_file import read_corpus

    corpus = read_corpus(request.corpus) if request.how != "zero" and request.corpus else None
    return (yield from head_sweep_job(loaded, request.text, request.target, request.contrast, how=request.how,
                                        corpus=corpus, output_position=request.output_position, cancel=cancel))

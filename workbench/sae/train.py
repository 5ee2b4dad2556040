"""An SAE training on a loaded model: the site resolved (default: the middle block's residual stream), the
corpus read, the engine's loop driven, the SAE saved as a SAELens v6 folder with the model's fingerprint, and
``summary.json`` beside it (the curves, the notes, the buffer's size). ``sae_train_job`` is the job generator
every front end drives (the CLI in this process, the window's lane, the long-run lane)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress
from lm_workbench.sae.sites import default_site, resolve_site
from lm_workbench.sae.spec import SaeTrainSpec

KIND = "sae"
SUMMARY = "summary.json"


def resolved(spec: SaeTrainSpec, loaded: Any) -> SaeTrainSpec:
    spec.check()
    if not Path(spec.corpus).is_file():
        raise WorkbenchError(f"corpus not found: {spec.corpus}")
    site = spec.site or default_site(loaded)
    resolve_site(loaded, site)
    return replace(spec, site=site)


def sae_train_job(spec: SaeTrainSpec, loaded: Any, *, cancel: Any = NEVER_CANCELLED,
                  report: Any = None) -> Generator[Any, None, dict[str, Any]]:
    """Train and save; the loop's metric and checkpoint events go to ``report``; returns the summary."""
    from lm_workbench.engine.sae.activations import read_corpus
    from lm_workbench.engine.sae.files import save_sae
    from lm_workbench.engine.sae.train import CHECKPOINT, train_sae
    from lm_workbench.sae.sites import model_fingerprint

    spec = resolved(spec, loaded)
    site = resolve_site(loaded, spec.site)
    lines = read_corpus(spec.corpus)
    out = Path(spec.out)
    result = None
    gen = train_sae(loaded, site, lines, spec.config(), out_dir=out, resume=spec.resume, cancel=cancel)
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if isinstance(event, Progress):
            yield event
        elif report is not None:
            report(event)
    fingerprint = model_fingerprint(loaded)
    save_sae(out, result.sae, hook_name=spec.site, model_name=loaded.info.spec, fingerprint=fingerprint,
             scaling_factor=result.scaling_factor, context_size=spec.context)
    (out / CHECKPOINT).unlink(missing_ok=True)
    summary = {"out_dir": str(out), "site": spec.site, "kind": spec.kind, "d_in": result.sae.d_in,
               "d_sae": result.sae.d_sae, "steps": result.steps_done, "scaling_factor": result.scaling_factor,
               "buffer_tokens": spec.buffer_tokens, "buffer_bytes": result.buffer_bytes,
               "corpus_tokens": result.corpus_tokens, "wall_s": result.wall_s, "curves": result.curves,
               "final": {k: v[-1] for k, v in result.curves.items() if v and k != "step"},
               "notes": result.notes, "model_fingerprint": fingerprint, "model_folder": loaded.info.folder,
               "spec": spec.to_dict()}
    (out / SUMMARY).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary

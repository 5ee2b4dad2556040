"""One tuned-lens run on a loaded model: read the corpus, train through the one loop, save the translators.

``tuned_lens_job(spec, loaded, cancel=..., report=...)`` is the job generator every front end drives: the CLI
(``run_recorded``, in this process, Ctrl-C cancels), the Lens view (``window_job``, on the window's
interactive lane, its Cancel) and the long-run lane (``lm_workbench.lens.runs``). It yields ``Progress``;
the loop's metric and checkpoint events go to ``report`` (a ``StoreReporter``: loss per logged step,
validation loss per evaluation, each checkpoint). Output folder::

    out_dir/translators.safetensors, out_dir/tuned_lens.json   the translators (lm_workbench.engine.lens.tuned.translators)
    out_dir/summary.json                                        the numbers below
    out_dir/checkpoints/step-XXXXXXXX/                          while training; removed when it finishes

The summary: ``kl`` = {"logit": {"before", "after"}, "tuned": {"before", "after"}}, each a list over the
hidden states (embeddings, layer 1, ..., layer L; the last is 0) of the held-out mean KL(p_L || p_l);
``mean_kl`` the means over the layers but the last.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.lens.files import default_out_dir, remember
from lm_workbench.lens.spec import TunedLensSpec

KIND = "tuned-lens"
CHECKPOINTS = "checkpoints"
SUMMARY_FILE = "summary.json"


def resolved(spec: TunedLensSpec, loaded: Any) -> TunedLensSpec:
    """``spec`` checked, its corpus files there, with its output folder made explicit for ``loaded``."""
    spec.check()
    for path in spec.corpus:
        if not Path(path).is_file():
            raise WorkbenchError(f"corpus file {path} does not exist")
    from lm_workbench.engine.lens.tuned.lens import check_tunable

    check_tunable(loaded)
    return replace(spec, out_dir=str(spec.out_dir or default_out_dir(loaded.info.folder)))


def _split(windows: Any, config: Any) -> tuple[Any, Any]:
    import numpy as np

    order = np.random.default_rng(config.seed).permutation(len(windows))
    held = min(config.validation_windows, max(1, len(windows) // 5))
    if len(windows) < 2:
        raise WorkbenchError(f"the corpus gives {len(windows)} window(s) of {config.seq_len} tokens; the tuned lens "
                             "needs a longer corpus (or a shorter --seq-len)")
    return windows[np.sort(order[held:])], windows[np.sort(order[:held])]


def tuned_lens_job(spec: TunedLensSpec, loaded: Any, *, cancel: CancelToken = NEVER_CANCELLED,
              report: Callable[[Any], None] = lambda event: None) -> Generator[Any, None, dict[str, Any]]:
    """Train and save the tuned lens ``spec`` describes on ``loaded``; returns the summary."""
    from lm_workbench.engine.pretrain.corpus import corpus_lines
    from lm_workbench.engine.lens.tuned.train import corpus_windows, train_tuned_lens
    from lm_workbench.engine.lens.tuned.translators import save_translators

    spec = resolved(spec, loaded)
    config = spec.config()
    out_dir = Path(str(spec.out_dir))
    yield Progress(0, 0, "reading and tokenizing the corpus")
    seq_len = min(config.seq_len, loaded.info.max_positions or config.seq_len)
    need = config.steps * config.batch_size + config.validation_windows
    windows = corpus_windows(loaded.tokenizer, corpus_lines(spec.corpus), seq_len, max_windows=need)
    train_w, valid_w = _split(windows, replace(config, seq_len=seq_len))
    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    gen = train_tuned_lens(loaded, train_w, valid_w, replace(config, seq_len=seq_len),
                           checkpoint_dir=out_dir / CHECKPOINTS, cancel=cancel)
    try:
        while True:
            event = next(gen)
            report(event)
            if isinstance(event, Progress):
                yield event
    except StopIteration as stop:
        result = stop.value
    layers = ["embeddings"] + [f"layer {i}" for i in range(1, len(result.kl_logit))]
    summary = {
        "model": loaded.info.spec, "model_folder": loaded.info.folder, "out_dir": str(out_dir),
        "steps": result.steps, "seq_len": seq_len, "windows": {"train": int(len(train_w)), "validation": int(len(valid_w))},
        "layers": layers,
        "kl": {"logit": {"before": result.kl_logit, "after": result.kl_logit_after},
               "tuned": {"before": result.kl_tuned_before, "after": result.kl_tuned}},
        "mean_kl": {"logit": _mean(result.kl_logit), "tuned_before": _mean(result.kl_tuned_before),
                    "tuned_after": _mean(result.kl_tuned)},
        "first_loss": result.losses[0] if result.losses else None,
        "final_loss": result.losses[-1] if result.losses else None,
        "device": result.device, "wall_s": time.perf_counter() - started, "spec": spec.to_dict(),
        "summary_path": str(out_dir / SUMMARY_FILE), "cancelled": False,
    }
    meta = {"model": loaded.info.spec, "model_folder": loaded.info.folder, "model_type": loaded.info.model_type,
            "steps": result.steps, "mean_kl": summary["mean_kl"]}
    save_translators(result.translators, out_dir, meta)
    (out_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    shutil.rmtree(out_dir / CHECKPOINTS, ignore_errors=True)
    remember(loaded.info.folder, out_dir)
    return summary


def _mean(values: list[float]) -> float:
    inner = values[:-1] or values
    return float(sum(inner) / len(inner))

"""Whether a recorded tuned-lens run's translators are still the ones it trained (a guide page or lecture step
visited again reuses it instead of training; ``lm_workbench.runs.long_reuse``).

The run's output folder (its ``tuned lens`` artifact) must hold the translators and the ``summary.json`` the run
wrote: that summary's settings are the run's own (the default folder beside a model is shared by every training
of that model, so a later training with other settings overwrites it) and its mean KL of the tuned lens is the
one the run recorded in the store. Kept light: no torch.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from lm_workbench.lens.files import WEIGHTS_FILE, remember
from lm_workbench.lens.spec import TunedLensSpec
from lm_workbench.lens.train import SUMMARY_FILE

ARTIFACT = "tuned lens"  # the artifact naming the run's translators folder (TunedLensRun.artifacts)


def recorded_summary(store: Any, found: dict[str, Any], spec: TunedLensSpec) -> dict[str, Any] | None:
    """The summary run ``found`` wrote (a dict, as its window job returned it) when its folder still holds its
    translators, else None; the folder is noted again as the model's tuned lens (``files.remember``)."""
    from lm_workbench.runs.reuse import canonical_settings

    folders = [a["path"] for a in store.artifacts(int(found["id"])) if a.get("name") == ARTIFACT]
    if not folders:
        return None
    folder = Path(folders[-1])
    try:
        summary = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (folder / WEIGHTS_FILE).is_file() or not isinstance(summary, dict):
        return None
    try:
        same = canonical_settings(TunedLensSpec.from_dict(summary["spec"]).to_dict()) \
            == canonical_settings(spec.to_dict())
        recorded = [m["value"] for m in store.metrics(int(found["id"]), "mean_kl_tuned")]
        written = float(summary["mean_kl"]["tuned_after"])
    except (KeyError, TypeError, ValueError):
        return None
    if not same or not recorded or not math.isclose(recorded[-1], written, rel_tol=1e-9, abs_tol=1e-12):
        return None  # another training's translators now: this run's are gone
    if summary.get("model_folder"):
        remember(summary["model_folder"], folder)
    return {**summary, "out_dir": str(folder)}

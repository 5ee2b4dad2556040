"""A fine-tuning run a lecture step or guide page starts on open (the instruct step's before / after, the preference
step's margin, the bench's curves), reused instead of trained again.

``finetune_key(spec)`` is the studies' reuse key (``lm_workbench.runs.reuse``: the kind, the spec's canonical
settings without its output folder, the start model's fingerprint, the data files' hashes, the package versions).
``recorded_finetune(store, spec)`` finds the newest finished ``finetune`` run carrying that key in its provenance
whose output folder still holds its ``summary.json`` (each run writes its own folder); the Fine-tune view then shows
that run as if it had just finished (its curves come from the store). A run the view trains is marked with its
key once it finishes (``mark_key``), so the next visit finds it. Kept light: no torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.finetune.spec import FineTuneSpec

KIND = "finetune"  # lm_workbench.finetune.runs.KIND (that module imports the training code)


def finetune_key(spec: FineTuneSpec) -> str:
    from lm_workbench.runs.reuse import reuse_key

    return reuse_key(KIND, spec.to_dict())


def recorded_finetune(store: Any, spec: FineTuneSpec, key: str | None = None) -> tuple[int, str] | None:
    """(run id, output folder) of the newest finished fine-tuning run with ``spec``'s key whose folder still holds
    its summary, or None."""
    from lm_workbench.runs.reuse import KEY_FIELD
    from lm_workbench.runs.summary import SUMMARY_FILE

    key = key or finetune_key(spec)
    for found in store.list_runs(kind=KIND, status="finished", recover=False):
        prov = found.get("provenance")
        out_dir = (found.get("params") or {}).get("out_dir")
        if not (isinstance(prov, dict) and prov.get(KEY_FIELD) == key and out_dir):
            continue
        if (Path(out_dir) / SUMMARY_FILE).is_file():  # each run writes its own folder: still there, still its own
            return int(found["id"]), str(out_dir)
    return None

"""A view's sweep recalled from the run store instead of computed again (a guide page or lecture step visited
again).

A ``ComputedRun`` whose kind can be rebuilt from what it recorded (``to_record`` / ``from_record``) is looked up
by the studies' reuse key (``lm_workbench.runs.reuse``: the run kind, its canonical settings, the
fingerprint of its model's folder, the hashes of its data files and the package versions). A finished run with
that key gives back its result (``recall``); a run computed afresh carries the key and its record in its
provenance (``remember``), so the next visit, and any study cell with the same settings, reuses it.
"""

from __future__ import annotations

from typing import Any

RECORD_FIELD = "view_result"  # the provenance field holding the result's record (``ComputedRun.to_record``)


def recall_key(run: Any) -> str | None:
    """The reuse key of ``run`` (None: its kind cannot be rebuilt from a record, so it is always computed)."""
    if not getattr(run, "recallable", False):
        return None
    from lm_workbench.runs.reuse import reuse_key

    return reuse_key(run.kind, run.spec.to_dict())


def recall(store: Any, run: Any, key: str) -> tuple[Any, int] | None:
    """(the result rebuilt, its run id) of the newest finished run with ``key`` that holds a record, or None."""
    from lm_workbench.runs.reuse import KEY_FIELD

    for found in store.list_runs(kind=run.kind, status="finished", recover=False):
        prov = found.get("provenance")
        if isinstance(prov, dict) and prov.get(KEY_FIELD) == key and isinstance(prov.get(RECORD_FIELD), dict):
            try:
                result = run.from_record(prov[RECORD_FIELD])
            except (TypeError, ValueError, KeyError):  # a record of an older layout: computed again
                continue
            result.reused_run = int(found["id"])
            return result, int(found["id"])
    return None


def remember(store: Any, run: Any, run_id: int, key: str, result: Any) -> None:
    """Put ``key`` and the result's record in run ``run_id``'s provenance."""
    from lm_workbench.runs.reuse import KEY_FIELD

    prov = store.get_run(run_id).get("provenance")
    prov = dict(prov) if isinstance(prov, dict) else {}
    prov[KEY_FIELD] = key
    prov[RECORD_FIELD] = run.to_record(result)
    store.set_provenance(run_id, prov)

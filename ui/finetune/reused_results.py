"""The Fine-tune tab's reuse of recorded runs (a mixin of ``FineTuneView``): a lecture step or guide page that
trains on open (the instruct step's before / after, the preference margin, the bench's curves) shows the finished
run recorded for the same start model, settings and data (``lm_workbench.finetune.reuse``) instead of training
again; the view follows it as if it had just finished (its curves from the store, its results from its folder).
A run trained here is marked with its key once it finishes, so the next visit finds it. The Start and Run bench
buttons always train."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

REUSED = "recorded before for this model, settings and data: shown again, not retrained"


class RecordedRuns:
    """Needs the view's ``ctx`` and ``services`` (the run services: lane, store path)."""

    _reuse = False  # the runs being started come from a lecture step or guide page
    _reused: set[int]
    _keys: dict[int, str]

    def submit_or_recall(self, spec: Any) -> tuple[int, Any]:
        """(run id, spec): the recorded run with ``spec``'s key when reusing and there is one (the spec with its
        output folder), else ``spec`` submitted to the long-run lane."""
        from lm_workbench.finetune.reuse import finetune_key, recorded_finetune
        from lm_workbench.finetune.runs import submit_finetune
        from lm_workbench.store import RunStore

        self._reused = getattr(self, "_reused", set())
        self._keys = getattr(self, "_keys", {})
        key = finetune_key(spec)
        if self._reuse:
            with RunStore(self.services.path) as store:
                found = recorded_finetune(store, spec, key)
            if found is not None:
                self._reused.add(found[0])
                return found[0], replace(spec, out_dir=found[1])
        run_id = submit_finetune(self.services.lane, spec)
        self._keys[run_id] = key
        return run_id, spec

    def remember_key(self, run_id: int) -> None:
        """Mark a run trained here, now finished, with its reuse key."""
        from lm_workbench.runs.reuse import mark_key
        from lm_workbench.store import RunStore

        key = getattr(self, "_keys", {}).pop(run_id, None)
        if key is not None:
            with RunStore(self.services.path) as store:
                mark_key(store, run_id, key)

    def reused_note(self, run_id: int) -> str:
        """" (recorded before ...)" for a run shown again, else ""."""
        return f" ({REUSED})" if run_id in getattr(self, "_reused", set()) else ""

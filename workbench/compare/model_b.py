"""A second model beside the first, in a Qt-free object: which model B is, its load, and what it is compared on.

The window shows model A (``lm_workbench.models.session.ModelSession``); "Compare with…" loads a model B beside it
and the views that support it show A | B on the same text. ``ModelB`` keeps B's load bookkeeping as the
session does A's (a generation per request, a newer request or "Stop comparing" drops an older one's result)
and the CKA result shown for the pair. Events: ``model_b_changed`` (B's ``LoadedModel`` or None),
``loading_changed`` (the spec being loaded or None). ``run_model_folder`` is the folder a finished run's
model opens from (the Runs tab's "Compare with this").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.observable import EventGroup


class ModelB:
    def __init__(self) -> None:
        self.loaded: Any = None  # model B: lm_workbench.engine.models.loading.LoadedModel, or None
        self.loading_spec: str | None = None
        self._gen = 0
        self.events = EventGroup("model_b_changed", "loading_changed")

    @property
    def loading(self) -> bool:
        return self.loading_spec is not None

    @property
    def spec(self) -> str | None:
        """B's spec (loaded, else loading), or None."""
        return self.loaded.info.spec if self.loaded is not None else self.loading_spec

    def begin_load(self, spec: str) -> int | None:
        """A new load of ``spec`` as model B: its generation, or None for an empty spec or one loading already."""
        spec = spec.strip()
        if not spec or spec == self.loading_spec:
            return None
        self._gen += 1
        self.loading_spec = spec
        self.events.loading_changed.emit(spec)
        return self._gen

    def finish_load(self, gen: int, loaded: Any) -> bool:
        """The load ``gen`` produced ``loaded``: B from now on; False (nothing kept) when it was replaced."""
        if gen != self._gen:
            return False
        self.loading_spec = None
        self.loaded = loaded
        self.events.loading_changed.emit(None)
        self.events.model_b_changed.emit(loaded)
        return True

    def end_load(self, gen: int) -> bool:
        """The load ``gen`` failed or was cancelled (B stays as it was); False when it was replaced."""
        if gen != self._gen:
            return False
        self.loading_spec = None
        self.events.loading_changed.emit(None)
        return True

    def stop(self) -> bool:
        """Stop comparing: B is dropped and a load in flight will be ignored; False when there was nothing."""
        had = self.loaded is not None or self.loading
        self._gen += 1
        was_loading = self.loading
        self.loading_spec = None
        self.loaded = None
        if was_loading:
            self.events.loading_changed.emit(None)
        if had:
            self.events.model_b_changed.emit(None)
        return had


def run_model_folder(run: dict[str, Any]) -> str | None:
    """The model folder a finished run left (a pre-training run's folder; a full fine-tune's ``adapter``), or
    None (not finished, another kind, an adapter method that must be merged first, or the folder is gone)."""
    if run.get("status") != "finished":
        return None
    out_dir = (run.get("params") or {}).get("out_dir")
    if not out_dir:
        return None
    out = Path(out_dir)
    if run.get("kind") == "pretrain" and (out / "model" / "config.json").is_file():
        return str(out)
    if run.get("kind") == "finetune" and (out / "adapter" / "config.json").is_file():
        return str(out / "adapter")
    return None

"""Which run, model and input a shown result belongs to (issue 49.5): one rule for every view.

A view keeps a ``ResultOrigin`` beside each result it shows. When its inputs change it asks
``origin.state(model, inputs)``:

- ``"current"``: the result is still the inputs' own;
- ``"stale"``: same model, other inputs: the result stays up, greyed, named "from <model>, <input>", with Run again;
- ``"gone"``: another model (or none): the result is cleared.

No Qt here; ``lm_workbench.ui.view_kit.result_origin_line.ResultOriginLine`` shows it in a view.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Hashable

__all__ = ["ResultOrigin", "model_identity", "short_model_name", "CURRENT", "STALE", "GONE"]

CURRENT, STALE, GONE = "current", "stale", "gone"


def short_model_name(spec: str) -> str:
    """A spec's short name (a folder's name, with its parent's for a run's ``model`` folder; a hub id as is)."""
    if "/" in spec and (spec.startswith(("/", ".", "~")) or Path(spec).exists()):
        path = Path(spec.rstrip("/"))
        if path.name == "model" and path.parent.name:
            return f"{path.parent.name}/{path.name}"
        return path.name or spec
    return spec


def model_identity(loaded: Any) -> tuple[int, str] | None:
    """(object id, spec) of a ``LoadedModel``: a model loaded again from the same spec is another model
    (its weights may differ: a course model retrained); None for no model."""
    if loaded is None:
        return None
    return id(loaded), str(loaded.info.spec)


@dataclass(frozen=True)
class ResultOrigin:
    """What a shown result was computed from.

    ``model``: ``model_identity`` of the model; ``inputs``: any hashable key of the inputs the result depends on
    (compared with ``==``); ``input_summary``: the inputs in a few words for a person ("query “dogs”, demo
    corpus"); ``run``: the recorded run's id when the result was recorded ("" when not).
    """

    model: tuple[int, str] | None
    inputs: Hashable
    input_summary: str
    run: str = ""

    @classmethod
    def of(cls, loaded: Any, inputs: Hashable, input_summary: str, run: Any = "") -> "ResultOrigin":
        return cls(model_identity(loaded), inputs, input_summary, str(run or ""))

    @property
    def model_name(self) -> str:
        return short_model_name(self.model[1]) if self.model else "no model"

    def state(self, loaded: Any, inputs: Hashable) -> str:
        """``CURRENT``, ``STALE`` (same model, other inputs) or ``GONE`` (another model or none)."""
        if model_identity(loaded) != self.model:
            return GONE
        return CURRENT if inputs == self.inputs else STALE

    def matches(self, loaded: Any, inputs: Hashable) -> bool:
        return self.state(loaded, inputs) == CURRENT

    def label(self) -> str:
        """"from <model>, <input>" (and ", run <id>" when recorded)."""
        run = f", run {self.run}" if self.run else ""
        summary = f", {self.input_summary}" if self.input_summary else ""
        return f"from {self.model_name}{summary}{run}"

"""What the Masking lab shows, without Qt: the objectives found, the tokenizers loaded by name, the objective list
for the tokenizer's family, the preview shown (its rows) and a preset step's settings still to apply.

``MaskingLabState`` keeps ``registry`` (the objectives' registry, once discovered), ``tokenizers`` (model spec ->
tokenizer, loaded on demand), ``loaded`` (model A), ``result`` / ``shown_key`` / ``bands`` (the engine's preview
dict, its request key, its rows from ``lm_workbench.masking_lab.rows.build_rows``) and ``preset`` (what a lecture
step or workspace asked for that waits for the objectives). Derived: ``family(spec)``, ``objective_choices(family)``
(the list the objective chooser shows, disabled ones with their reason), ``pick(current, choices, family)``,
``family_note(family)``, ``request_key(...)``. ``show(key, result)`` returns whether the sampling statistics
belong to another request (and must be cleared). Events: ``result_changed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lm_workbench.masking_lab.rows import build_rows
from lm_workbench.observable import EventGroup

PREFERRED = {"encoder": "mlm", "decoder": "clm", "encoder-decoder": "bart"}  # the objective picked per family
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class ObjectiveChoice:
    name: str
    label: str  # the name, with its status when it does not work ("span (failed)")
    enabled: bool
    reason: str = ""  # why it is disabled (the chooser's tooltip)


class MaskingLabState:
    def __init__(self) -> None:
        self.registry: Any = None
        self.tokenizers: dict[str, Any] = {}
        self.loaded: Any = None
        self.family_key: Any = object()  # the family the objective list was made for (object(): none yet)
        self.result: dict[str, Any] | None = None
        self.shown_key: Any = None
        self.bands: list = []
        self.stats_key: Any = None
        self.preset: dict[str, Any] | None = None
        self.events = EventGroup("result_changed")

    # --------------------------------------------------------------- inputs
    def family(self, tokenizer_spec: str | None) -> str | None:
        """Model A's family when its tokenizer is used; None (not known here) for another model's tokenizer."""
        if tokenizer_spec is None and self.loaded is not None:
            return str(self.loaded.info.family)
        return None

    def objective_choices(self, family: str | None) -> list[ObjectiveChoice]:
        """The objectives for ``family`` (every one when None): working ones first, each name once."""
        seen: set[str] = set()
        out = []
        for record in sorted(self.registry.records, key=lambda r: (r.status != "ok", r.name)):
            if record.name in seen or (family and record.families and family not in record.families):
                continue
            seen.add(record.name)
            ok = record.status == "ok"
            out.append(ObjectiveChoice(record.name, record.name if ok else f"{record.name} ({record.status})", ok,
                                       "" if ok else (record.error or "not enabled")))
        return out

    @staticmethod
    def pick(current: str | None, choices: list[ObjectiveChoice], family: str | None) -> str | None:
        """The objective to select: the current one if it still works, else the family's usual one, else the first."""
        names = [c.name for c in choices if c.enabled]
        pick = current if current in names else PREFERRED.get(family or "", "mlm")
        return pick if pick in names else (names[0] if names else None)

    @staticmethod
    def family_note(family: str | None) -> str:
        return (f"Objectives for {family} models." if family else
                "The family of this tokenizer's model is not known here: every objective is listed.")

    def tokenizer(self, spec: str | None) -> Any:
        """Model A's tokenizer (``spec`` None) or the one loaded for ``spec``."""
        return self.loaded.tokenizer if spec is None else self.tokenizers[spec]

    @staticmethod
    def request_key(model_key: Any, text: str, spec: str | None, name: str, config: Any, seed: int) -> tuple:
        return ("lab", model_key, text, spec, name, repr(config), seed)

    @staticmethod
    def stats_request_key(spec: str | None, name: str | None, config: Any, seed: int, n: int, text: str) -> tuple:
        return ("lab-stats", spec, name, repr(config), seed, n, text)

    # -------------------------------------------------------------- results
    def show(self, key: tuple, result: dict[str, Any]) -> bool:
        """Keep the preview of request ``key``; True when the statistics drawn so far were of other inputs."""
        stats_key = key[1:]
        stale = self.stats_key != stats_key
        self.stats_key = stats_key
        self.result, self.shown_key = result, key
        self.bands = build_rows(result)
        self.events.result_changed.emit()
        return stale

    def clear(self) -> None:
        self.result, self.bands = None, []
        self.events.result_changed.emit()

    def cut_note(self) -> str | None:
        """The line saying the text was cut to the tokenizer's window, or None."""
        r = self.result
        if r is None or r["full_length"] <= len(r["ids"]):
            return None
        return f"The text has {r['full_length']} tokens; only the first {len(r['ids'])} fit the tokenizer's window."

    def take_preset_samples(self) -> int | None:
        """A preset's ``samples`` (draw that many once shown), once."""
        samples = self.preset.pop("samples", None) if self.preset else None
        return int(samples) if samples else None

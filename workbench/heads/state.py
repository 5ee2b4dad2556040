"""What the Heads tab shows, without Qt: the prediction's inputs, the direct logit attribution and the sweep that
ablates every head (filled row by row).

``HeadsState`` holds the target and foil ("instead of"), how heads are ablated, the corpus file mean and
resample read, and for an encoder-decoder the decoder's output position explained (Explain's and Patching's); ``request(text)`` is what ``lm_workbench.heads.view_tasks`` takes. ``dla`` is the engine's
``DirectLogitAttribution`` (or None) and ``dla_note`` the one line a post-norm model gets instead; ``sweep`` the
engine's ``Ablation`` (partial while ``running``), ``change()`` its [rows][heads] ablated − clean with NaN for
rows not done yet. Events: ``inputs_changed``, ``dla_changed``, ``sweep_changed``, ``running_changed``.
"""

from __future__ import annotations

import math
from typing import Any

from lm_workbench.observable import EventGroup
from lm_workbench.requests import AblateRequest, DlaRequest

HOWS = ("zero", "mean", "resample")  # lm_workbench.engine.heads.names.HOWS (a test checks they agree)


class HeadsState:
    def __init__(self) -> None:
        self.target = ""
        self.contrast = ""
        self.how = "zero"
        self.corpus = ""
        self.output_position = 0  # an encoder-decoder's output token explained (0: the first)
        self.dla: Any = None
        self.dla_note = ""
        self.sweep: Any = None
        self.rows_total = 0
        self.running = False
        self.events = EventGroup("inputs_changed", "dla_changed", "sweep_changed", "running_changed")

    # ---------------------------------------------------------------- inputs
    def set_inputs(self, target: str | None = None, contrast: str | None = None, how: str | None = None,
                   corpus: str | None = None, output_position: int | None = None) -> None:
        if how is not None and how not in HOWS:
            raise ValueError(f"how is one of {', '.join(HOWS)}, not {how!r}")
        if output_position is not None:
            if int(output_position) < 0:
                raise ValueError(f"output_position is at least 0, not {output_position}")
            self.output_position = int(output_position)
        for name, value in (("target", target), ("contrast", contrast), ("how", how), ("corpus", corpus)):
            if value is not None:
                setattr(self, name, value)
        self.events.inputs_changed.emit()

    def problem(self, text: str, sweep: bool = False) -> str | None:
        """Why a computation cannot start yet (None: it can)."""
        if not text.strip():
            return "Type a text above: a prompt for a decoder, a text with one [MASK] for a masked LM."
        if sweep and self.how != "zero" and not self.corpus.strip():
            return f"{self.how.capitalize()} ablation reads a corpus: name a text file (one text a line)."
        return None

    def request(self, text: str, model: str = "") -> AblateRequest:
        """The whole form as the typed request ``lm-workbench ablate --all-heads`` builds (``model``: the loaded
        model's spec, when the caller knows it; the tasks take the loaded model itself). The view's target may be
        empty (None: the model's own prediction), which the CLI's required ``--target`` does not allow."""
        # tokens as typed: " list" (a word after a space) and "list" are different tokens
        return AblateRequest(model=model, text=text, target=self.target if self.target.strip() else None,
                             contrast=self.contrast if self.contrast.strip() else None, all_heads=True,
                             how=self.how, corpus=self.corpus.strip() or None, output_position=self.output_position)

    def dla_request(self, text: str, model: str = "") -> DlaRequest:
        """The split's typed request, as ``lm-workbench dla`` builds it (the form's target, contrast, position)."""
        ablate = self.request(text, model)
        return DlaRequest(model=model, text=text, target=ablate.target, contrast=ablate.contrast,
                          output_position=ablate.output_position)

    # ---------------------------------------------------------------- results
    def set_dla(self, result: tuple[str, Any]) -> None:
        """``lm_workbench.heads.view_tasks.dla_job``'s ("dla", result) or ("note", line)."""
        kind, value = result
        self.dla, self.dla_note = (value, "") if kind == "dla" else (None, value)
        self.events.dla_changed.emit()

    def clear(self) -> None:
        self.dla, self.dla_note, self.sweep, self.rows_total = None, "", None, 0
        self.events.dla_changed.emit()
        self.events.sweep_changed.emit()

    def clear_sweep(self) -> None:
        """The ablation map is gone (another model): the split stays."""
        self.sweep, self.rows_total = None, 0
        self.events.sweep_changed.emit()

    def start(self) -> None:
        self.sweep, self.rows_total, self.running = None, 0, True
        self.events.running_changed.emit(True)
        self.events.sweep_changed.emit()

    def add_partial(self, partial: Any) -> None:
        self.sweep = partial
        self.rows_total = len(partial.rows)
        self.events.sweep_changed.emit()

    def finish(self, result: Any) -> None:
        self.sweep, self.rows_total, self.running = result, len(result.rows), False
        self.events.running_changed.emit(False)
        self.events.sweep_changed.emit()

    def stop(self) -> None:
        """Cancelled or failed: the rows done so far stay."""
        self.running = False
        self.events.running_changed.emit(False)

    def rows_done(self) -> int:
        return 0 if self.sweep is None else len(self.sweep.ablated_metric)

    def has_result(self) -> bool:
        """True when a sweep (finished or the rows a cancel kept) is there to show."""
        return self.sweep is not None

    def change(self) -> list[list[float]]:
        """[rows][heads]: the metric with the head ablated minus the clean metric; NaN for rows not done yet."""
        if self.sweep is None:
            return []
        clean = self.sweep.clean_metric
        rows = [[v - clean for v in row] for row in self.sweep.ablated_metric]
        return rows + [[math.nan] * self.sweep.heads for _ in range(self.rows_total - len(rows))]

    def to_settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"target": self.target, "contrast": self.contrast, "how": self.how,
                                    "corpus": self.corpus}
        return settings | ({"output_position": self.output_position} if self.output_position else {})

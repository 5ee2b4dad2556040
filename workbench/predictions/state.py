"""What the Predictions tab shows, without Qt: which result is shown (masks filled, next tokens, an infilling),
the decoder prompt ids Accept and Generate keep, and whether Explain waits for the predictions.

``PredictionsState`` keeps ``loaded`` (model A), ``ids`` / ``ids_text`` (the decoder prompt ids and the text box
content they belong to: the request keeps them exactly while the text is theirs), ``shown`` ("" | "fill" |
"next" | "infill") with its result, ``busy`` (the predictions are being computed) and ``explain_pending`` (a
preset step or an Explain pressed while busy asked to explain once the predictions are shown).
Derived: ``prompt_ids(text)``, ``explain_request(index, row)`` (what Explain attributes: ids and the chosen
token, or the infilled text), ``model_b_request(index)`` (where model B makes that prediction), ``accepted(row)``
(the prompt ids with candidate ``row`` appended, and their text). Events: ``shown_changed``.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.attribution.targets import ModelBPrediction, PredictionTarget
from lm_workbench.observable import EventGroup

SHOWN = ("", "fill", "next", "infill")


class PredictionsState:
    def __init__(self) -> None:
        self.loaded: Any = None
        self.ids: list[int] | None = None
        self.ids_text: str | None = None
        self.shown = ""
        self.next: dict | None = None  # the next-token result: ids, candidates, texts, tail, text, read
        self.fill_ids: list[int] = []
        self.fill_positions: list[int] = []
        self.fill_candidates: list[list[Any]] = []  # per mask, the candidates (each with .id)
        self.fill_text = ""
        self.infill_text: str | None = None
        self.asked_text: str | None = None  # the text of the infilling asked for
        self.busy = False
        self.explain_pending = False
        self.events = EventGroup("shown_changed")

    # --------------------------------------------------------------- inputs
    def use_model(self, loaded: Any) -> None:
        """Model A for the next request; another model forgets the prompt ids."""
        if loaded is not self.loaded:
            self.loaded, self.ids, self.ids_text = loaded, None, None

    def prompt_ids(self, text: str) -> list[int] | None:
        """The kept prompt ids when ``text`` is still theirs, else None (tokenize the text)."""
        return self.ids if text == self.ids_text else None

    def keep_prompt(self, ids: list[int], text: str) -> None:
        self.ids, self.ids_text = list(ids), text

    # -------------------------------------------------------------- results
    def show_fill(self, ids: list[int], predictions: list[Any], text: str) -> None:
        self.fill_ids = list(ids)
        self.fill_positions = [p.position for p in predictions]
        self.fill_candidates = [list(p.candidates) for p in predictions]
        self.fill_text = text
        self._shown("fill")

    def show_next(self, result: dict) -> None:
        self.next = result  # (self.ids stay the ids Accept/Generate kept: the request's key must not change)
        self._shown("next")

    def show_infill(self) -> None:
        self.infill_text = self.asked_text
        self._shown("infill")

    def show_nothing(self) -> None:
        self._shown("")

    def _shown(self, what: str) -> None:
        self.shown = what
        self.events.shown_changed.emit(what)

    # -------------------------------------------------------------- explain
    def explain_request(self, index: int = 0, row: int = 0) -> PredictionTarget | None:
        """What Explain would attribute: for next tokens candidate ``row``; for masks, mask ``index``'s candidate
        ``row``; for an infilling its text. None: nothing shown to explain."""
        if self.shown == "next" and self.next:
            return PredictionTarget(ids=tuple(self.next["ids"]), token_id=self.next["candidates"][row].id)
        if self.shown == "fill" and self.fill_positions:
            candidates = self.fill_candidates[index]
            token = candidates[row].id if candidates else None
            return PredictionTarget(ids=tuple(self.fill_ids), position=self.fill_positions[index], token_id=token)
        if self.shown == "infill" and self.infill_text is not None:
            return PredictionTarget(text=self.infill_text)
        return None

    def model_b_request(self, index: int = 0) -> ModelBPrediction | None:
        """Where model B makes the prediction Explain explains: the text, its kind and (masked LMs) which mask."""
        if self.shown == "next" and self.next:
            return ModelBPrediction(text=self.next["text"], kind="next-token")
        if self.shown == "fill" and self.fill_positions:
            return ModelBPrediction(text=self.fill_text, kind="mask", mask_index=index)
        if self.shown == "infill" and self.infill_text is not None:
            return ModelBPrediction(text=self.infill_text, kind="seq2seq")
        return None

    def should_explain_now(self) -> bool:
        """A pending explanation can run: the predictions are shown and nothing is computing."""
        return self.explain_pending and not self.busy and self.explain_request() is not None

    # ------------------------------------------------------ decoder actions
    def candidates(self) -> list:
        return list(self.next["candidates"]) if self.next else []

    def shown_ids(self) -> list[int]:
        return list(self.next["ids"]) if self.next else []

    def accepted(self, row: int) -> tuple[list[int], str] | None:
        """The prompt ids with candidate ``row`` appended and their text, or None (no such candidate)."""
        if not self.next or not 0 <= row < len(self.next["candidates"]):
            return None
        return self.next["ids"] + [self.next["candidates"][row].id], self.next["texts"][row]

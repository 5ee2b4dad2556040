"""What a view asks Explain to attribute, as typed requests (issue 43: not dicts whose keys must match across
three layers). Built by the views' Qt-free states and panels, read by ``lm_workbench.attribution.view_tasks``.

- ``Foil``: the "instead of" of "why X and not Y": a token or label as typed (``contrast``), or the model's best
  other one (``second_choice``), or none.
- ``PredictionTarget``: a prediction the Predictions view shows (the keywords of
  ``lm_workbench.engine.attribution.explain.prediction_target``): ``ids`` as given (a decoder's prompt, or a
  masked LM's ids with ``position`` the mask) or ``text`` (an encoder-decoder's first output token); ``token_id``
  the shown token (None: the model's top token).
- ``ModelBPrediction``: where model B makes the same prediction: its ``text``, the ``kind`` (``next-token``,
  ``mask`` with ``mask_index``, ``seq2seq``).
- ``LabelTarget``: a fine-tuned classifier's label for one input (``classifier_target``'s keywords): ``text``,
  ``text2`` (a pair's second text), ``label`` (None: the predicted one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

MODEL_B_KINDS = ("next-token", "mask", "seq2seq")


@dataclass(frozen=True, kw_only=True)
class Foil:
    contrast: str | None = None  # as typed: " list" and "list" are different tokens
    second_choice: bool = False


NO_FOIL = Foil()


@dataclass(frozen=True, kw_only=True)
class PredictionTarget:
    ids: tuple[int, ...] | None = None
    text: str | None = None
    position: int | None = None
    token_id: int | None = None
    foil: Foil = NO_FOIL

    def __post_init__(self) -> None:
        if (self.ids is None) == (self.text is None):
            raise ValueError("a prediction target is ids or a text, not both or neither")
        if self.ids is not None:
            object.__setattr__(self, "ids", tuple(int(i) for i in self.ids))

    def with_foil(self, foil: Foil) -> PredictionTarget:
        return replace(self, foil=foil)

    def keywords(self) -> dict[str, Any]:
        """``prediction_target``'s keyword arguments."""
        return {"ids": None if self.ids is None else list(self.ids), "text": self.text, "position": self.position,
                "token_id": self.token_id, "contrast": self.foil.contrast,
                "second_choice": self.foil.second_choice}


@dataclass(frozen=True, kw_only=True)
class ModelBPrediction:
    text: str
    kind: str
    mask_index: int = 0

    def __post_init__(self) -> None:
        if self.kind not in MODEL_B_KINDS:
            raise ValueError(f"model B's prediction is one of {', '.join(MODEL_B_KINDS)}, not {self.kind!r}")


@dataclass(frozen=True, kw_only=True)
class LabelTarget:
    text: str
    text2: str | None = None
    label: str | None = None
    foil: Foil = NO_FOIL

    def with_foil(self, foil: Foil) -> LabelTarget:
        return replace(self, foil=foil)

    def keywords(self) -> dict[str, Any]:
        """``classifier_target``'s keyword arguments."""
        return {"text": self.text, "text2": self.text2, "label": self.label, "contrast": self.foil.contrast,
                "second_choice": self.foil.second_choice}

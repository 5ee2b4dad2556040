"""What the Features tab shows, without Qt: the SAE folder and corpus named, the feature chosen, the steering
strength, and the results (the text's features, the feature's view, the steering). Events: ``inputs_changed``,
``strip_changed``, ``feature_changed``, ``steer_changed``, ``grid_changed``, ``search_changed``."""

from __future__ import annotations

from typing import Any

from lm_workbench.observable import EventGroup


class FeaturesState:
    def __init__(self) -> None:
        self.sae_dir = ""
        self.sae_dir_b = ""  # model B's SAE (when comparing): the same text's features in B
        self.strip_b: dict[str, Any] | None = None
        self.site_b = ""
        self.corpus = ""
        self.feature = 0
        self.strength = 8.0
        self.strip: dict[str, Any] | None = None  # TextFeatures.strip(): tokens, features, values
        self.site = ""
        self.notes: list[str] = []
        self.feature_view: dict[str, Any] | None = None
        self.steering: Any = None
        self.grid: Any = None  # the engine's SteeringGrid
        self.search: dict[str, Any] | None = None  # search_job's result
        self.events = EventGroup("inputs_changed", "strip_changed", "feature_changed", "steer_changed",
                                 "grid_changed", "search_changed")

    def set_inputs(self, sae_dir: str | None = None, corpus: str | None = None, feature: int | None = None,
                   strength: float | None = None, sae_dir_b: str | None = None) -> None:
        if feature is not None and int(feature) < 0:
            raise ValueError(f"feature is at least 0, not {feature}")
        for name, value in (("sae_dir", sae_dir), ("corpus", corpus), ("feature", feature),
                            ("strength", strength), ("sae_dir_b", sae_dir_b)):
            if value is not None:
                setattr(self, name, value)
        self.events.inputs_changed.emit()

    def problem(self, text: str, *, corpus: bool = False) -> str | None:
        """Why a computation cannot start yet (None: it can)."""
        if not self.sae_dir.strip():
            return "Name an SAE folder (cfg.json + sae_weights.safetensors): lm-workbench sae train makes one."
        if not text.strip():
            return "Type a text above."
        if corpus and not self.corpus.strip():
            return "A feature's top contexts read a corpus: name a text file (one text a line)."
        return None

    def set_strip(self, result: Any) -> None:
        features, site, notes = result
        self.strip, self.site, self.notes = features.strip(20), site, list(notes)
        if self.strip["features"] and self.feature not in self.strip["features"]:
            self.feature = int(self.strip["features"][0])  # the strongest, until the user picks another
        self.events.strip_changed.emit()

    def set_strip_b(self, result: Any) -> None:
        """Model B's features on the same text (``None``: not comparing, or no SAE named for B)."""
        if result is None:
            self.strip_b, self.site_b = None, ""
        else:
            features, site, _notes = result
            self.strip_b, self.site_b = features.strip(20), site
        self.events.strip_changed.emit()

    def set_feature_view(self, view: dict[str, Any] | None) -> None:
        self.feature_view = view
        self.events.feature_changed.emit()

    def set_steering(self, result: Any) -> None:
        self.steering = result
        self.events.steer_changed.emit()

    def set_search(self, found: dict[str, Any] | None) -> None:
        self.search = found
        self.events.search_changed.emit()

    def search_line(self) -> str:
        """The search's result as one line of text."""
        found = self.search
        if not found:
            return ""
        line = f"Promote {found['token']!r}: " + (", ".join(f"{f} ({v:+.3f})" for f, v in found["promoting"])
                                                  or "no logit effect (no LM head)")
        if found["firing"] is None:
            return line + f"; fire on {found['token']!r}: press Show feature first (it reads the corpus)"
        return line + f"; fire on {found['token']!r}: " + (", ".join(map(str, found["firing"])) or "none")

    def set_grid(self, grid: Any) -> None:
        self.grid = grid
        self.events.grid_changed.emit()

    def grid_matrix(self) -> tuple[list[list[float]], list[list[float]]]:
        """([layers][strengths] concept scores, the same of KL), NaN where a cell is not defined."""
        grid = self.grid
        index = {(c.layer, c.strength): c for c in grid.cells}
        nan = float("nan")

        def value(cell: Any, name: str) -> float:
            found = None if cell is None else getattr(cell, name)
            return nan if found is None else float(found)

        scores = [[value(index.get((l, s)), "concept_score") for s in grid.strengths] for l in grid.layers]
        kls = [[value(index.get((l, s)), "kl") for s in grid.strengths] for l in grid.layers]
        return scores, kls

    def clear(self) -> None:
        self.strip = None
        self.strip_b = None
        self.feature_view = None
        self.steering = None
        self.grid = None
        self.events.grid_changed.emit()
        self.events.strip_changed.emit()
        self.events.feature_changed.emit()
        self.events.steer_changed.emit()

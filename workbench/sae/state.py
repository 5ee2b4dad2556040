"""What the Features tab shows, without Qt: the SAE folder and corpus named, the feature chosen, the steering
strength, the steering direction (an SAE feature, or contrastive pairs: typed or a file, at a chosen site), and the
results (the text's features, the feature's view, the steering and what it was of). Events: ``inputs_changed``,
``strip_changed``, ``feature_changed``, ``steer_changed``, ``grid_changed``, ``search_changed``."""

from __future__ import annotations

from typing import Any

from lm_workbench.observable import EventGroup

FEATURE, PAIRS = "feature", "pairs"  # the steering direction: an SAE feature's, or contrastive pairs'
PAIRS_HINT = ("Contrastive pairs: type lines 'positive<TAB>negative' (or name a pairs file), pick a site, then "
              "Steer or Layer grid.")


class FeaturesState:
    def __init__(self) -> None:
        self.direction = FEATURE
        self.pairs_text = ""  # typed pairs, lines positive<TAB>negative (the CLI's --pairs line format)
        self.pairs_file = ""  # or a pairs file (lines, or JSON {"positive": [...], "negative": [...]})
        self.pairs_site = ""  # the hook point the pairs' direction is computed and added at
        self.concept = ""  # the grid's concept words, comma-separated ("": the tokens the direction promotes most)
        self.sites: list[str] = []  # the loaded model's per-block hook points (``view_tasks.steering_sites``)
        self.sites_problem = ""  # why the loaded model has none (a one-line message)
        self.steer_about: dict[str, Any] | None = None  # what the steering shown was of: model, text, direction
        self.grid_about: dict[str, Any] | None = None
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

    def set_pairs(self, direction: str | None = None, text: str | None = None, file: str | None = None,
                  site: str | None = None, concept: str | None = None) -> None:
        """The steering direction's kind (``FEATURE`` or ``PAIRS``) and the pairs' inputs."""
        if direction is not None and direction not in (FEATURE, PAIRS):
            raise ValueError(f"direction is {FEATURE!r} or {PAIRS!r}, not {direction!r}")
        for name, value in (("direction", direction), ("pairs_text", text), ("pairs_file", file),
                            ("pairs_site", site), ("concept", concept)):
            if value is not None:
                setattr(self, name, value)
        self.events.inputs_changed.emit()

    def set_sites(self, sites: list[str], default: str, problem: str = "") -> None:
        """The loaded model's steering sites (a new model): the site kept where the model has it, else ``default``."""
        self.sites, self.sites_problem = list(sites), problem
        if self.pairs_site not in self.sites:
            self.pairs_site = default if default in self.sites else (self.sites[0] if self.sites else "")

    def pairs_given(self) -> tuple[str, str]:
        """("file", its path) or ("typed", the typed text); check ``pairs_problem`` first."""
        return ("file", self.pairs_file.strip()) if self.pairs_file.strip() else ("typed", self.pairs_text)

    def pairs_problem(self, text: str) -> str | None:
        """Why steering with pairs cannot start (None: it can). Typed pairs are read here, with the engine's reader
        (a file is read by the job)."""
        from lm_workbench.engine.errors import WorkbenchError
        from lm_workbench.engine.steering.vectors import parse_pairs

        if self.sites_problem:
            return self.sites_problem
        if not text.strip():
            return "Type a text above."
        if not self.pairs_site:
            return "Pick a site to steer at."
        typed, file = self.pairs_text.strip(), self.pairs_file.strip()
        if typed and file:
            return "Pairs are both typed and named as a file: clear one of them."
        if not typed and not file:
            return "No pairs: type lines 'positive<TAB>negative' or name a pairs file."
        if typed:
            try:
                parse_pairs(self.pairs_text, "typed pairs")
            except WorkbenchError as exc:
                return str(exc)
        return None

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

    def set_steering(self, result: Any, about: dict[str, Any] | None = None) -> None:
        """The engine's ``SteerResult`` and what it was of: ``{model, text, direction}`` (``steer_line``)."""
        self.steering, self.steer_about = result, about
        self.events.steer_changed.emit()

    def steer_line(self) -> str:
        """The steering shown in one line: the model, the text, the direction, the site and strength, where the
        prediction is read and the KL (plain text)."""
        result, about = self.steering, self.steer_about or {}
        if result is None:
            return ""
        text = about.get("text", "")
        text = text if len(text) <= 40 else text[:39] + "…"
        head = f"{about['model']}, text {text!r}: " if about else ""
        return (f"{head}{about.get('direction', 'steering')} × {result.strength:g} at {result.site}; predictions of "
                f"{result.position}; KL(unsteered ‖ steered) {result.kl:.4f} nats")

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

    def set_grid(self, grid: Any, about: dict[str, Any] | None = None) -> None:
        """The engine's ``SteeringGrid`` and what it was of: ``{model, text, direction, site}``."""
        self.grid, self.grid_about = grid, about
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
        self.steering = self.steer_about = None
        self.grid = self.grid_about = None
        self.events.grid_changed.emit()
        self.events.strip_changed.emit()
        self.events.feature_changed.emit()
        self.events.steer_changed.emit()

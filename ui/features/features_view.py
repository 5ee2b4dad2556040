"""The Features tab: the form writes a ``lm_workbench.sae.state.FeaturesState``; the view computes the text's
features as the host asks (``lm_workbench.sae.view_tasks.text_features_job``: the token × feature strip), and on its
buttons one feature's view (``feature_job``: contexts, histogram, logit effect; progress, Cancel) and steering
(``steer_job``: steered beside unsteered) and its layer grid (``grid_job``). The direction is an SAE feature's or,
with no SAE at all, contrastive pairs' (typed or a file, at a chosen site: ``pairs_form``; ``pairs_steer_job``,
``pairs_grid_job``, as ``steer --pairs [--grid]``)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QProgressBar, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import Progress
from lm_workbench.result_origin import short_model_name
from lm_workbench.sae.view_tasks import (feature_job, grid_job, lecture_strip_job, pairs_grid_job, pairs_steer_job,
                                         search_job, steer_job, steering_sites, text_features_job)
from lm_workbench.sae.state import FEATURE, PAIRS, PAIRS_HINT, FeaturesState
from lm_workbench.ui import theme
from lm_workbench.ui.features.pairs_form import DIRECTIONS, PairsForm
from lm_workbench.ui.view_kit.sweep_feedback import show_failure, show_finished, show_progress
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView, paired
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.boxes import column, form_rows, row
from lm_workbench.ui.widgets.controls import button, combo_box, double_spin_box, label, line_edit, spin_box
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.notice import Notice


def _e(text: str) -> str:
    return html.escape(text).replace(" ", "&nbsp;") or "&nbsp;"


def _breakable(text: str, run: int = 12) -> str:
    """``text`` with a zero-width space in each ``run`` characters without a space: a generation such as
    "itheritherither…" wraps in its column instead of running past the view's edge."""
    return re.sub(rf"(\S{{{run}}})(?=\S)", "\\1\u200b", text)


def shaded(tokens: list[str], values: list[float], top: float) -> str:
    """Tokens as HTML, each with a background as strong as its activation relative to ``top``."""
    out = []
    colour = QColor(theme.current().colours.feature_activation)
    for token, value in zip(tokens, values):
        alpha = 0.0 if top <= 0 else max(0.0, min(1.0, value / top))
        colour.setAlphaF(alpha)
        out.append(f"<span style='background-color: {colour.name(QColor.NameFormat.HexArgb)}'>{_e(token)}</span>")
    return "".join(out)


class FeaturesView(ModelView):
    no_model_hint = "Load a model (left): the features of an SAE trained on it show here."
    empty_hint = "Type a text above, and name an SAE folder (or steer with contrastive pairs: Direction)."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = FeaturesState()
        self._recipe: dict[str, Any] | None = None  # a lecture step's SAE recipe, until its folder is known
        self._lecture_step = 0  # counts lecture steps applied: each one computes its strip again
        self._pick_strongest = False  # a lecture step that names no feature: the strongest on its text
        self._after_strip: Any = None  # what a lecture step shows once its strip is shown
        self.sae_edit = line_edit("an SAE folder (cfg.json + sae_weights.safetensors)")
        self.sae_b_edit = line_edit("comparing: model B's SAE folder, for the same text's features in B")
        self.corpus_edit = line_edit("top contexts: a text file, one text a line")
        self.feature_spin = spin_box(0, 1_000_000, 0)
        self.strength_spin = double_spin_box(-1e4, 1e4, self.state.strength)
        self.show_button = button("Show feature", clicked=self.show_feature)
        self.steer_button = button("Steer", clicked=self.steer)
        self.grid_button = button("Layer grid", clicked=self.run_grid,
                                  tip="Steer at the same site of every layer, at several strengths: the concept "
                                      "score (logit gain of the feature's top promoted tokens) and KL per cell")
        self.cancel_button = button("Cancel", clicked=self.cancel)
        self.search_edit = line_edit("search features by a token they promote or fire on (Enter)")
        self.search_line = label("", wrap=True)
        self.progress = QProgressBar()  # empty (no 0 %) until a job reports
        self.progress.setRange(0, 1)
        self.notice = Notice()
        self.sae_box = QWidget()  # the SAE's rows; in pairs mode the pairs form stands in their place
        form_rows(("SAE", self.sae_edit), ("SAE (B)", self.sae_b_edit), ("Corpus", self.corpus_edit),
                  ("Search", self.search_edit), owner=self.sae_box)
        self.pairs_form = PairsForm()
        self.pairs_form.setVisible(False)
        self.direction_combo = combo_box(DIRECTIONS, tip=(
            "Steer with an SAE feature's decoder direction, or with contrastive pairs' mean activation difference "
            "(no SAE needed)"))
        self.feature_label = QLabel("Feature")
        numbers = row(QLabel("Direction"), self.direction_combo, self.feature_label, self.feature_spin,
                      QLabel("Strength"), self.strength_spin, (self.progress, 1))
        buttons = row(self.show_button, self.steer_button, self.grid_button, self.cancel_button, 1)
        # two rows: they fit 1024 px with F5's type
        form_controls = column(None, numbers, buttons, margins=None, spacing=None)
        self.strip_map = HeatmapView(empty_hint="The features active on the text show here, strongest first.")
        self.strip_map.set_axes("token", "feature")
        self.strip_line = QLabel("")
        self.contexts = label("", wrap=True)
        self.histogram = pg.PlotWidget()
        theme.bind(self.histogram, lambda w, m: (w.setMinimumHeight(m.feature_histogram_min_h),
                                                 w.setMaximumHeight(m.feature_histogram_max_h)))
        self.histogram.setLabel("bottom", "log10 activation")
        theme.follow(self.histogram, self._restyle_histogram)
        self._restyle_histogram()
        self.histogram.setLabel("left", "tokens")
        self.steering = label("", wrap=True)
        self.steering.setTextFormat(Qt.TextFormat.RichText)
        self.steering.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        right = column(None, self.contexts, (self.histogram, 1), self.steering, margins=None, spacing=None)
        self.strip_b_map = HeatmapView(empty_hint="Model B's features on the same text show here.")
        self.strip_b_map.set_axes("token", "feature")
        self.strip_b_map.setVisible(False)
        self.grid_map = HeatmapView(empty_hint=self.GRID_HINTS[FEATURE])
        self.grid_map.set_axes("layer", "strength")
        self.grid_line = label("", wrap=True)
        self.grid_line.setTextFormat(Qt.TextFormat.RichText)
        left = column(None, self.strip_line, (self.strip_map, 1), (self.strip_b_map, 1), self.grid_line,
                      (self.grid_map, 1), margins=None, spacing=None)
        column(self, self.sae_box, self.pairs_form, form_controls, self.search_line, self.notice,
               (row((left, 1), (right, 1)), 1), spacing=None)
        for edit in (self.sae_edit, self.sae_b_edit):  # the strip is computed again for a new SAE
            edit.editingFinished.connect(self._read_form)
            edit.editingFinished.connect(self.inputs_changed)
        self.corpus_edit.editingFinished.connect(self._read_form)
        self.feature_spin.valueChanged.connect(self._read_form)
        self.strength_spin.valueChanged.connect(self._read_form)
        self.direction_combo.currentIndexChanged.connect(self._direction_changed)
        self.pairs_form.changed.connect(lambda: self.state.set_pairs(**self.pairs_form.values()))
        self.search_edit.returnPressed.connect(self.search)
        self.state.events.strip_changed.connect(self._show_strip)
        self.state.events.feature_changed.connect(self._show_feature)
        self.state.events.steer_changed.connect(self._show_steering)
        self.state.events.grid_changed.connect(self._show_grid)
        self.state.events.search_changed.connect(lambda: self.search_line.setText(self.state.search_line()))

    def _restyle_histogram(self) -> None:
        """The histogram in the theme's plot colours (pyqtgraph's own black background stood out)."""
        c = theme.current().colours
        self.histogram.setBackground(c.base_bg)
        for side in ("left", "bottom"):
            axis = self.histogram.getAxis(side)
            axis.setPen(c.plot_axis_ink)
            axis.setTextPen(c.plot_axis_ink)

    # ------------------------------------------------------------ form
    def _read_form(self) -> None:
        self.state.set_inputs(self.sae_edit.text().strip(), self.corpus_edit.text().strip(), self.feature_spin.value(),
                              self.strength_spin.value(), self.sae_b_edit.text().strip())

    def set_inputs(self, sae_dir: str = "", corpus: str = "", feature: int = 0, strength: float = 8.0,
                   sae_dir_b: str = "") -> None:
        """Fill the form (what a user types; tests and presets call it)."""
        self.sae_edit.setText(sae_dir)
        self.sae_b_edit.setText(sae_dir_b)
        self.corpus_edit.setText(corpus)
        self.feature_spin.setValue(feature)
        self.strength_spin.setValue(strength)
        self._read_form()
        self.inputs_changed.emit()

    def set_pairs(self, text: str | None = None, file: str | None = None, site: str | None = None,
                  concept: str | None = None) -> None:
        """Steer with contrastive pairs: the direction chosen and the pairs form filled (what a user types)."""
        self.direction_combo.setCurrentIndex([kind for _, kind in DIRECTIONS].index(PAIRS))
        self.pairs_form.set_values(text, file, site, concept)

    GRID_HINTS = {FEATURE: "Layer grid: where steering with the feature works, and where it breaks the model.",
                  PAIRS: "Layer grid: where steering with the pairs' direction works, and where it breaks the model."}

    def _direction_changed(self) -> None:
        """SAE feature or contrastive pairs: the form's rows and the buttons that apply, and the host asked again
        (its hint says what the mode needs)."""
        kind = self.direction_combo.currentData()
        self.notice.clear_message()
        self.state.set_pairs(direction=kind, **self.pairs_form.values())
        pairs = kind == PAIRS
        self.grid_map.empty_hint = self.GRID_HINTS[kind]  # the empty grid says whose direction it will steer with
        self.grid_map.update()
        self.sae_box.setVisible(not pairs)
        self.pairs_form.setVisible(pairs)
        self.search_line.setVisible(not pairs)
        for widget in (self.feature_label, self.feature_spin, self.strip_line, self.strip_map, self.contexts,
                       self.histogram):  # an SAE's: the steering and the grid get their room
            widget.setVisible(not pairs)
        self.strip_b_map.setVisible(not pairs and self.state.strip_b is not None)
        self.show_button.setEnabled(not pairs)  # a feature's contexts need an SAE
        self.grid_button.setToolTip("Steer at the same site of every layer, at several strengths: the concept score "
                                    + ("(logit gain of the concept words) and KL per cell; the pairs are averaged "
                                       "again at each block's site" if pairs else
                                       "(logit gain of the feature's top promoted tokens) and KL per cell"))
        self.inputs_changed.emit()

    def attach(self, ctx: ViewContext, compute: Any) -> None:
        super().attach(ctx, compute)
        ctx.model_changed.connect(self._model_changed)
        if ctx.loaded is not None:
            self._model_changed(ctx.loaded)

    def _model_changed(self, loaded: Any) -> None:
        """A new model: no result of the last one stays up (also in pairs mode, where the host computes no strip),
        and the site chooser lists the new model's hook points."""
        self.state.clear()
        if loaded is None:
            self.state.set_sites([], "", "Load a model (left) first.")
        else:
            try:
                sites, default = steering_sites(loaded)
                self.state.set_sites(sites, default)
            except WorkbenchError as exc:
                self.state.set_sites([], "", f"{exc}: it cannot be steered")
        self.pairs_form.set_sites(self.state.sites, self.state.pairs_site)

    def _text(self) -> str:
        return self.ctx.current_text() if self.ctx is not None else ""

    # ------------------------------------------------------------ lecture steps
    preset_settings = frozenset({"sae", "corpus", "feature", "strength", "show", "direction", "pairs",
                                 "pairs_file", "site", "concept"})
    SHOWS = ("strip", "feature", "steer", "grid")

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``sae`` (a folder, or a training recipe: trained once with progress and
        kept, ``lm_workbench.sae.preset_sae``), ``corpus``, ``feature`` (absent: the strongest on the text),
        ``strength`` and ``show`` (``strip``, ``feature``: its contexts, ``steer``, ``grid``: the layer grid), run
        once the strip is shown. ``direction: pairs`` steers with contrastive pairs instead: ``pairs`` (lines
        ``positive<TAB>negative``, or a list of [positive, negative]), ``pairs_file``, ``site``, ``concept``; its
        ``show`` is ``steer`` or ``grid``, run at once (there is no strip without an SAE)."""
        from lm_workbench.sae.preset_sae import check_recipe

        show = settings.get("show", "strip")
        if show not in self.SHOWS:
            raise ValueError(f"show must be one of {', '.join(self.SHOWS)}, not {show!r}")
        if settings.get("direction", FEATURE) == PAIRS:
            self._apply_pairs_step(settings, show)
            return
        if "direction" in settings and settings["direction"] != FEATURE:
            raise ValueError(f"direction is {FEATURE!r} or {PAIRS!r}, not {settings['direction']!r}")
        if self.state.direction == PAIRS:
            self.direction_combo.setCurrentIndex([kind for _, kind in DIRECTIONS].index(FEATURE))
        recipe = settings.get("sae", self.state.sae_dir)
        problem = check_recipe(recipe) if recipe else ""
        if problem:
            raise ValueError(problem)
        feature = settings.get("feature")
        self._recipe = recipe if isinstance(recipe, dict) else None
        self._lecture_step += 1
        self._pick_strongest = feature is None
        self._after_strip = {"feature": self.show_feature, "steer": self.steer, "grid": self.run_grid}.get(show)
        folder = "" if self._recipe is not None else str(recipe or "")
        self.set_inputs(folder, str(settings.get("corpus", self.state.corpus)),
                        int(feature if feature is not None else self.state.feature),
                        float(settings.get("strength", self.state.strength)), self.state.sae_dir_b)

    def _lecture_strip_done(self, result: Any) -> None:
        """The recipe's SAE is made: name its folder in the form, then show the strip as usual."""
        *strip, folder = result
        self._recipe = None
        self.sae_edit.setText(folder)
        self.state.sae_dir = folder
        self._strip_done(tuple(strip))

    def _apply_pairs_step(self, settings: dict[str, Any], show: str) -> None:
        pairs = settings.get("pairs")
        if isinstance(pairs, list):
            if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
                raise ValueError("pairs is lines 'positive<TAB>negative' or a list of [positive, negative]")
            pairs = "\n".join(f"{a}\t{b}" for a, b in pairs)
        self._recipe, self._after_strip = None, None
        self.strength_spin.setValue(float(settings.get("strength", self.state.strength)))
        self._read_form()
        self.set_pairs(None if pairs is None else str(pairs), settings.get("pairs_file"), settings.get("site"),
                       settings.get("concept"))
        run = {"steer": self.steer, "grid": self.run_grid}.get(show)
        if run is not None:
            QTimer.singleShot(0, self, run)  # once the step's text is in the box

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        s = self.state
        if s.direction == PAIRS:  # a workspace keeps the pairs mode as the user left it
            return {"direction": PAIRS, "pairs": s.pairs_text, "pairs_file": s.pairs_file, "site": s.pairs_site,
                    "concept": s.concept, "strength": s.strength}, {}
        return {"sae": s.sae_dir, "corpus": s.corpus, "feature": s.feature, "strength": s.strength}, {}

    # ------------------------------------------------------------ host
    def computation(self, inputs: Inputs) -> Computation | None:
        recipe = self._recipe
        if recipe is not None and inputs.text.strip():  # a lecture step's SAE, trained first where not kept yet
            loaded, text = inputs.loaded, inputs.text
            return Computation((inputs.model_key, repr(recipe), text, self._lecture_step),
                               lambda cancel: lecture_strip_job(loaded, recipe, text, cancel), self._lecture_strip_done,
                               label="The lecture's SAE (trained once, then kept)…", on_progress=self._progress)
        if self.state.direction == PAIRS and not self.state.sae_dir.strip():  # no strip to compute without an SAE
            if self.notice.level() != "warning" or not self.notice.text():  # a refusal stays up until the next try
                self.notice.show_message(self.state.sites_problem or PAIRS_HINT, "info")
            return None
        problem = self.state.problem(inputs.text)
        if problem:
            self.notice.show_message(problem, "info")
            return None
        loaded, folder, text = inputs.loaded, self.state.sae_dir, inputs.text
        comp = Computation((inputs.model_key, folder, text), lambda cancel: text_features_job(loaded, folder, text,
                                                                                              cancel),
                           self._strip_done, label="SAE features…")
        b, folder_b = self.ctx.model_b if self.ctx is not None else None, self.state.sae_dir_b
        if b is None or not folder_b:
            self.state.set_strip_b(None)
            return comp
        comp.key = (comp.key, folder_b)
        return paired(comp, b, lambda cancel: text_features_job(b, folder_b, text, cancel), self.state.set_strip_b)

    def _strip_done(self, result: Any) -> None:
        self.notice.clear_message()
        if self._pick_strongest and result[0].order:
            self.state.feature = int(result[0].order[0])
        self._pick_strongest = False
        self.state.set_strip(result)
        action, self._after_strip = self._after_strip, None
        if action is not None:
            action()

    def show_hint(self, text: str) -> None:
        self.state.clear()
        self.notice.show_message(text, "info")

    def show_failure(self, message: str) -> None:
        self.state.strip = None  # the features of an earlier model or text never stay under the failure
        self.state.set_strip_b(None)  # (emits strip_changed: both strips redrawn empty)
        self.notice.show_message(message, "warning")

    # ------------------------------------------------------------ jobs
    def _ready(self, corpus: bool = False) -> Any:
        loaded = self.ctx.loaded if self.ctx is not None else None
        problem = "Load a model (left) first." if loaded is None else self.state.problem(self._text(), corpus=corpus)
        if problem:
            self.notice.show_message(problem, "info")
            return None
        return loaded

    def show_feature(self) -> None:
        loaded = self._ready(corpus=True)
        if loaded is None:
            return
        s = self.state
        folder, corpus, feature = s.sae_dir, s.corpus, s.feature
        self.ctx.jobs.run(lambda cancel: feature_job(loaded, folder, corpus, feature, cancel),
                          self._feature_done, step="feature", label=f"Feature {feature}: top contexts…",
                          on_progress=self._progress, on_error=self._failed, on_cancelled=lambda: None)

    def _ready_pairs(self) -> Any:
        """The loaded model when steering with pairs can start; else None and the reason in the message area."""
        loaded = self.ctx.loaded if self.ctx is not None else None
        problem = "Load a model (left) first." if loaded is None else self.state.pairs_problem(self._text())
        if problem:
            self.notice.show_message(problem, "warning")
            return None
        return loaded

    def _about(self, loaded: Any, text: str, direction: str = "") -> dict[str, Any]:
        s = self.state
        if not direction:
            direction = f"feature {s.feature} of {Path(s.sae_dir).name}"
        return {"model": short_model_name(str(loaded.info.spec)), "text": text, "direction": direction}

    def _current(self, loaded: Any) -> bool:
        """A result is of the model loaded now (one computed for a model since replaced is dropped)."""
        return self.ctx is not None and self.ctx.loaded is loaded

    def steer(self) -> None:
        if self.state.direction == PAIRS:
            return self._steer_pairs()
        loaded = self._ready()
        if loaded is None:
            return
        s, text = self.state, self._text()
        folder, feature, strength = s.sae_dir, s.feature, s.strength
        about = self._about(loaded, text)
        self.ctx.jobs.run(lambda cancel: steer_job(loaded, folder, feature, text, strength, cancel),
                          lambda r: self._steered(loaded, r, about), step="steer", label="Steering…",
                          on_error=self._failed)

    def _steer_pairs(self) -> None:
        loaded = self._ready_pairs()
        if loaded is None:
            return
        s, text = self.state, self._text()
        given, site, strength = s.pairs_given(), s.pairs_site, s.strength
        self.ctx.jobs.run(lambda cancel: pairs_steer_job(loaded, given, site, text, strength, cancel),
                          lambda r: self._steered(loaded, r[0], self._about(loaded, text, r[1])), step="steer",
                          label="Steering with pairs…", on_error=self._failed)

    def _steered(self, loaded: Any, result: Any, about: dict[str, Any]) -> None:
        if self._current(loaded):
            self.notice.clear_message()
            self.state.set_steering(result, about)

    def search(self) -> None:
        loaded, token = self._ready(), self.search_edit.text()
        if loaded is None or not token.strip():
            return
        folder = self.state.sae_dir
        corpus = (self.state.feature_view or {}).get("corpus")
        self.ctx.jobs.run(lambda cancel: search_job(loaded, folder, token, corpus, cancel), self.state.set_search,
                          step="search", label="Searching features…", on_error=self._failed)

    def run_grid(self) -> None:
        s, text = self.state, self._text()
        loaded = self._ready_pairs() if s.direction == PAIRS else self._ready()
        if loaded is None:
            return
        strength = s.strength
        if s.direction == PAIRS:
            given, site, concept = s.pairs_given(), s.pairs_site, s.concept
            job = lambda cancel: pairs_grid_job(loaded, given, site, text, strength, concept, cancel)  # noqa: E731
            done = lambda r: self._grid_done(loaded, r[0], self._about(loaded, text, r[1]))  # noqa: E731
        else:
            folder, feature, about = s.sae_dir, s.feature, self._about(loaded, text)
            job = lambda cancel: grid_job(loaded, folder, feature, text, strength, cancel)  # noqa: E731
            done = lambda grid: self._grid_done(loaded, grid, about)  # noqa: E731
        self.ctx.jobs.run(job, done, step="grid", label="Steering grid…", on_progress=self._progress,
                          on_error=self._failed, on_cancelled=lambda: None)

    def _grid_done(self, loaded: Any, grid: Any, about: dict[str, Any]) -> None:
        show_finished(self.progress)
        if self._current(loaded):
            self.notice.clear_message()
            self.state.set_grid(grid, about)

    def cancel(self) -> None:
        if self.ctx is not None:
            self.ctx.jobs.cancel()

    def _progress(self, progress: Progress) -> None:
        show_progress(self.progress, progress)

    def _feature_done(self, result: Any) -> None:
        show_finished(self.progress)
        self.state.set_feature_view(result)

    def _failed(self, exc: BaseException, tb: str) -> None:
        show_failure(self.notice, self.ctx, exc, tb, "The features")

    # ------------------------------------------------------------ show
    def _show_strip(self) -> None:
        strip = self.state.strip
        if not strip or not strip["features"]:
            self.strip_map.set_matrix(None)
            self.strip_line.setText("No feature is active on this text." if strip else "")
            return
        self.strip_map.set_matrix(np.asarray(strip["values"]), strip["tokens"],
                                  [str(f) for f in strip["features"]], title=f"SAE features at {self.state.site}")
        b = self.state.strip_b
        self.strip_b_map.setVisible(b is not None and self.state.direction != PAIRS)
        if b is not None:
            self.strip_b_map.set_matrix(np.asarray(b["values"]) if b["features"] else None, b["tokens"],
                                        [str(f) for f in b["features"]], title=f"B: SAE features at {self.state.site_b}")
        self.strip_line.setText(f"{len(strip['features'])} strongest features at {self.state.site}; feature "
                                f"{self.state.feature} chosen")
        self.feature_spin.blockSignals(True)
        self.feature_spin.setValue(self.state.feature)
        self.feature_spin.blockSignals(False)

    def _show_feature(self) -> None:
        view = self.state.feature_view
        self.histogram.clear()
        if view is None:
            self.contexts.setText("")
            return
        stats = view["stats"]
        lines = [f"<b>Feature {stats.feature}</b>: density {stats.density:.4f} over {view['tokens']} tokens, "
                 f"max activation {stats.max_activation:.3f}"]
        for ctx in stats.contexts:
            lines.append(f"{ctx.activation:.3f}&nbsp;&nbsp;" + shaded(ctx.tokens, ctx.values, stats.max_activation))
        effect = view["effect"]
        if effect:
            lines.append("promotes: " + ", ".join(_e(repr(e["token"])) for e in effect["promoted"][:8]))
            lines.append("suppresses: " + ", ".join(_e(repr(e["token"])) for e in effect["suppressed"][:8]))
        lines += [_e(n) for n in view["notes"]]
        self.contexts.setText("<br>".join(lines))
        edges = np.log10(np.asarray(stats.bin_edges))  # log-spaced bins: even widths in log10
        if sum(stats.histogram):
            width = float(edges[1] - edges[0])
            self.histogram.addItem(pg.BarGraphItem(x=edges[:-1] + width / 2, height=stats.histogram,
                                                   width=width * 0.9,
                                                   brush=theme.current().colours.feature_activation))

    def _show_steering(self) -> None:
        result = self.state.steering
        if result is None:
            self.steering.setText("")
            return
        cells, gap = [], theme.current().metrics.rich_column_gap
        sides = (("unsteered", result.unsteered), ("steered", result.steered))
        for name, side in sides:
            top = "<br>".join(f"{_e(repr(c['token']))} {c['probability']:.3f}" for c in side.top)
            cells.append(f"<td valign='top' style='padding-right:{gap}px'><b>{name}</b><br>{top}</td>")
        # the continuations each on a line of its own, named: side by side in two narrow columns they ran together
        gens = "".join(f"<br><b>{name} continues:</b> <i>{html.escape(_breakable(side.generation))}</i>"
                       for name, side in sides if side.generation)
        notes = "".join(f"<br>{html.escape(n)}" for n in result.notes)
        self.steering.setText(f"{html.escape(self.state.steer_line())}<table><tr>{''.join(cells)}</tr></table>"
                              f"{gens}{notes}")

    def _show_grid(self) -> None:
        grid = self.state.grid
        if grid is None:
            self.grid_map.set_matrix(None)
            self.grid_line.setText("")
            return
        scores, kls = self.state.grid_matrix()
        self.grid_map.set_matrix(np.asarray(scores), [str(l) for l in grid.layers],
                                 [f"{s:g}" for s in grid.strengths], title="concept score (logit gain)", signed=True)
        worst = np.nanmax(np.asarray(kls)) if np.isfinite(np.asarray(kls)).any() else float("nan")
        about = self.state.grid_about or {}
        head = f"{about['model']}: {about['direction']} at every block. " if about else ""
        words = ", ".join(repr(w) for w in grid.concept_tokens)
        self.grid_line.setText(html.escape(f"{head}Concept tokens {words}; largest KL to the unsteered model "
                                           f"{worst:.3f} nats. " + " ".join(grid.notes)))

"""The Lens tab's tuned-lens controls: the "Logit lens | Tuned lens" switch, training, and the KL chart.

``TunedLensControls`` holds the Qt-free ``lm_workbench.lens.state.TunedLensState``. The switch is enabled
when the loaded model has translators; "Train tuned lens" starts the recorded run
(``lm_workbench.lens.runs.window_job``) through the view's jobs, with progress and Cancel, on the corpus
chosen with "Corpus…" (the Python documentation by default). ``KlChart`` draws the KL to the final
distribution per layer for both lenses (pyqtgraph; colours and sizes from the theme tokens).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QFileDialog, QProgressBar, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, spin_box
from lm_workbench.ui.widgets.plain_plot import plain_plot_item
from lm_workbench.ui.widgets.elided_label import ElidedLabel
from lm_workbench.lens.state import TunedLensState

NAMES = {"logit": "logit lens", "tuned": "tuned lens"}
TITLE = "KL divergence from each layer's prediction to the output"


def chart_style() -> dict[str, Any]:
    c, m = theme.current().colours, theme.current().metrics
    return {"logit": c.train_loss_curve, "tuned": c.valid_loss_curve, "legend": c.plot_legend_ink,
            "background": c.base_bg, "line": m.plot_line_width, "symbol": m.plot_small_symbol,
            "height": m.layer_plot_min_h}


class KlChart(pg.PlotWidget):
    """KL(p_L || p_l) per layer, one curve per lens; ``curve_data()`` gives what is drawn."""

    def __init__(self, parent: QWidget | None = None):
        s = chart_style()
        super().__init__(parent, background=s["background"])
        # the left title short: a long axis title was cut on a short chart (F5, 1024 × 768)
        item = plain_plot_item(self, "layer (0: embeddings)", "KL (nats)", si_prefix=False)
        item.addLegend(offset=(-10, 5), labelTextColor=s["legend"])
        self.curves = {key: item.plot([], [], name=NAMES[key]) for key in NAMES}
        self._restyle()
        theme.follow(self, self._restyle)

    def _restyle(self) -> None:
        s = chart_style()
        self.setBackground(s["background"])
        self.setFixedHeight(s["height"])
        c, f = theme.current().colours, theme.current().fonts
        self.getPlotItem().setTitle(TITLE, size=f"{f.pt(f.live_plot_title_delta):g}pt", color=c.label_ink)
        for key, curve in self.curves.items():
            curve.setPen(pg.mkPen(s[key], width=s["line"]))
            curve.setSymbol("o" if key == "logit" else "s")
            curve.setSymbolBrush(s[key])
            curve.setSymbolPen(None)
            curve.setSymbolSize(s["symbol"])

    def show_curves(self, curves: dict[str, list[float]]) -> None:
        for key, curve in self.curves.items():
            values = curves.get(key)
            if values:
                curve.setData(np.arange(len(values), dtype=float), np.asarray(values, dtype=float))
            else:
                curve.setData([], [])
        longest = max((len(v) for v in curves.values()), default=0)
        self.getPlotItem().getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(longest)]])

    def curve_data(self) -> dict[str, list[float]]:
        out = {}
        for key, curve in self.curves.items():
            _, y = curve.getData()
            if y is not None and len(y):
                out[key] = [float(v) for v in y]
        return out


class TunedLensControls(QWidget):
    """The switch, the training buttons and the progress of a training; see the module docstring."""

    mode_changed = Signal(str)
    trained = Signal()
    ended = Signal()  # a training ended (trained, cancelled or failed)

    def __init__(self, view: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view  # the LensView: its ctx (jobs, run services, loaded model)
        self.state = TunedLensState()
        self.logit_button = button("Logit lens")
        self.tuned_button = button("Tuned lens")
        self.group = QButtonGroup(self)
        for switch, mode in ((self.logit_button, "logit"), (self.tuned_button, "tuned")):
            switch.setCheckable(True)
            switch.setProperty("mode", mode)
            self.group.addButton(switch)
        self.logit_button.setChecked(True)
        self.group.buttonClicked.connect(lambda b: self.set_mode(b.property("mode")))
        self.train_button = button("Train tuned lens", clicked=self.start_training,
                                   tip="Fit one affine translator per layer on a corpus (the model stays frozen); "
                                       "recorded in Runs, saved next to the model")
        self.steps = spin_box(1, 100_000, self.state.steps, suffix=" steps")
        self.steps.valueChanged.connect(lambda v: setattr(self.state, "steps", int(v)))
        self.corpus_button = button("Corpus…", clicked=self._choose_corpus,
                                    tip="A .txt or .jsonl file (default: the English text of Python's documentation)")
        self.cancel_button = button("Cancel", clicked=self.cancel_training)
        self.progress = QProgressBar()
        self.status = ElidedLabel("")  # a long progress line ends in "…" (its tooltip whole): no sideways scroll
        self.status.setObjectName("summary")
        row(self.logit_button, self.tuned_button, self.train_button, self.steps, self.corpus_button, self.progress,
            self.cancel_button, (self.status, 1), owner=self)
        self._sync()

    # -- the model and the switch ------------------------------------------------------------------------------
    def set_model(self, loaded: Any) -> None:
        tunable = loaded is not None and loaded.info.family in ("decoder", "encoder")
        folder = loaded.info.folder if tunable else None
        if folder != self.state.model_folder and not self.state.training:
            self.status.setText("")  # a result line belongs to the model it was trained on
        self.state.model_loaded(folder)
        self.train_button.setEnabled(tunable and not self.state.training)
        self._sync()

    def set_mode(self, mode: str) -> None:
        self.state.set_mode(mode)
        self._sync()
        self.mode_changed.emit(self.state.mode)

    def _sync(self) -> None:
        self.tuned_button.setEnabled(self.state.has_tuned)
        (self.tuned_button if self.state.mode == "tuned" else self.logit_button).setChecked(True)
        training = self.state.training
        self.progress.setVisible(training)
        self.cancel_button.setVisible(training)
        self.steps.setEnabled(not training)
        self.corpus_button.setEnabled(not training)
        if not training and self.state.model_folder is None:
            self.train_button.setEnabled(False)

    def _choose_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Corpus for the tuned lens", "", "Text (*.txt *.jsonl);;All (*)")
        if path:
            self.state.corpus = path
            self.status.setText(f"corpus: {Path(path).name}")

    # -- training ---------------------------------------------------------------------------------------------
    def start_training(self, reuse: bool = False) -> None:
        """Train the tuned lens on the loaded model (a recorded run, with progress and Cancel). ``reuse`` (a guide
        page or lecture step that asks for the tuned lens): the run recorded for the same model, settings and
        corpus is loaded instead when its translators are still there (nothing trained or recorded)."""
        from lm_workbench.lens.runs import window_job

        ctx = self.view.ctx
        loaded = ctx.loaded if ctx is not None else None
        if loaded is None or self.state.training:
            return
        try:
            spec = self.state.training_spec(loaded.info.spec)
        except Exception as exc:  # noqa: BLE001 - a bad setting: its one line
            ctx.show_error(exc)
            return
        self.state.training = True
        self.train_button.setEnabled(False)
        self.progress.setRange(0, 0)
        self.status.setText("training the tuned lens…")
        self._sync()
        ctx.jobs.run(window_job(spec, loaded, ctx.run_services.path, reuse=reuse), self._done,
                     label="Training the tuned lens…",
                     on_progress=self._progress, on_error=self._failed, on_cancelled=self._cancelled,
                     keep=True)  # typing meanwhile waits for it (its reading is held back) instead of cancelling it

    def cancel_training(self) -> None:
        if self.state.training and self.view.ctx is not None:
            self.view.ctx.jobs.cancel()

    def _progress(self, report: Any) -> None:
        if report.total > 0:
            self.progress.setRange(0, report.total)
            self.progress.setValue(report.done)
        if report.message:
            self.status.setText(report.message)

    def _ended(self, text: str) -> None:
        self.state.training = False
        self.train_button.setEnabled(self.state.model_folder is not None)
        self.status.setText(text)
        self._sync()
        self.ended.emit()

    def _done(self, summary: dict[str, Any]) -> None:
        self.state.trained(summary)
        mean = summary["mean_kl"]
        said = f"run {summary['run_id']}"
        if summary.get("reused_run") is not None:  # a guide page visited again: loaded, not trained
            said += " (recorded before for this model, settings and corpus: loaded again, not retrained)"
        self._ended(f"{said}: mean KL {mean['logit']:.3g} (logit) -> {mean['tuned_after']:.3g} "
                    f"(tuned) on held-out text")
        self.trained.emit()
        self.mode_changed.emit(self.state.mode)

    def _failed(self, exc: BaseException, tb: str) -> None:
        self._ended("training failed")
        if self.view.ctx is not None:
            self.view.ctx.show_error(exc, tb)

    def _cancelled(self) -> None:
        self._ended("training cancelled (a checkpoint was kept; the run is in Runs)")

"""The Course models dialog: pick the families, see the estimate, Start; "model k of n", progress and Cancel.

Before Start each family has a box (all ticked), its estimate and whether it is built already: a model built at
this version is skipped (a build that stopped resumes where it stopped) unless "Build again" is ticked; one
built by an earlier version is built again. The total estimate is for what Start will build, and says where
it comes from. While the build runs the dialog shows "Model 2 of 5 (GPT-2)", the step, a bar for the whole build
and Cancel; afterwards it lists what ran (a cancelled build lists only the models that started). The build is
the window's (``CourseBuilder``): closing the dialog leaves it running, with its progress in the status bar.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDialog, QGridLayout, QGroupBox, QLabel, QProgressBar, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.pretrain.course_build import family_name
from lm_workbench.pretrain.course_estimate import Estimate, estimate_family, format_duration
from lm_workbench.ui import theme
from lm_workbench.ui.pretrain.course_builder import CourseBuilder
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, label

WHAT = {"bert": "masked LM", "gpt2": "next token", "bart": "denoising encoder-decoder",
        "t5": "span-corruption encoder-decoder", "elmo": "two-way LSTM (biLM)"}
INTRO = ("Tiny BERT, GPT-2, BART, T5 and ELMo models pre-trained here on the English text of Python's "
         "documentation: a real model of each family for the views and the lectures, tiny and meant for "
         "demonstrations. They build in the background, one after the other; the window stays usable.")


class CourseModelsDialog(QDialog):
    def __init__(self, builder: CourseBuilder, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from lm_workbench.pretrain.course_models import COURSE_SETTINGS

        self.setWindowTitle("Course models")
        self.builder = builder
        self.families = list(COURSE_SETTINGS)
        self.estimates: dict[str, Estimate] = {}
        self.checks: dict[str, QCheckBox] = {}
        self.estimate_labels: dict[str, QLabel] = {}
        self.state_labels: dict[str, QLabel] = {}
        intro = label(INTRO, wrap=True)
        grid = QGridLayout()
        theme.bind(grid, lambda w, m: w.setHorizontalSpacing(m.wide_spacing))
        for row, family in enumerate(self.families):
            box = QCheckBox(f"{family_name(family)} ({WHAT.get(family, family)})")
            box.setChecked(True)
            box.toggled.connect(lambda _on: self.refresh())
            self.checks[family] = box
            self.estimate_labels[family], self.state_labels[family] = QLabel(""), QLabel("")
            grid.addWidget(box, row, 0)
            grid.addWidget(self.estimate_labels[family], row, 1)
            grid.addWidget(self.state_labels[family], row, 2)
        grid.setColumnStretch(2, 1)
        self.rebuild_check = QCheckBox("Build again the models already built at this version")
        self.rebuild_check.toggled.connect(lambda _on: self.refresh())
        self.total_label = label(name="summary")  # two lines, unwrapped: the dialog grows to hold them

        self.model_label = label(wrap=True)  # "Model 2 of 5 (GPT-2), step 120 of 300, about 0:40 left"
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.ran_label = QLabel("")  # what ran, a line each, after (or during) the build
        self.ran_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        progress_box = QGroupBox("Progress")
        boxes.column(progress_box, self.model_label, self.bar, self.ran_label, margins=None, spacing=None)

        self.start_button = button("Start", clicked=self.start, default=True)
        self.cancel_button = button("Cancel build", tip="Stop the model training now (it saves a checkpoint); the "
                                                        "others do not start", clicked=builder.cancel)
        self.close_button = button("Close", tip="Close this dialog; a build goes on in the background (see the "
                                                "status bar)", clicked=self.close)
        buttons = boxes.row(1, self.start_button, self.cancel_button, self.close_button)

        boxes.column(self, intro, grid, self.rebuild_check, self.total_label, progress_box, 1, buttons, margins=None,
                     spacing=None)
        builder.changed.connect(self.refresh)
        self.read_estimates()

    # ----------------------------------------------------------------- API
    def choose(self, families: list[str], rebuild: bool = False) -> None:
        """Tick exactly ``families`` (and Build again when ``rebuild``)."""
        for family, box in self.checks.items():
            box.setChecked(family in families)
        self.rebuild_check.setChecked(rebuild)
        self.refresh()

    def chosen(self) -> list[str]:
        return [f for f in self.families if self.checks[f].isChecked()]

    def read_estimates(self) -> None:
        """The estimates again (the last build's times are in the run store now)."""
        self.estimates = {f: estimate_family(f) for f in self.families}
        self.refresh()

    def start(self) -> bool:
        """Start building the ticked families; False (with the reason shown) when nothing would be built."""
        try:
            plan = self.builder.start(self.chosen(), rebuild=self.rebuild_check.isChecked())
        except WorkbenchError as exc:
            self.total_label.setText(str(exc))
            return False
        if not plan.build:
            self.model_label.setText("Nothing to build: " + (plan.skipped_line() or "tick a family."))
        return bool(plan.build)

    # -------------------------------------------------------------- drawing
    def refresh(self) -> None:
        from lm_workbench.pretrain.course_folders import plan_build

        builder, state = self.builder, self.builder.state
        building = builder.building
        for box in self.checks.values():
            box.setEnabled(not building)
        self.rebuild_check.setEnabled(not building)
        self.start_button.setEnabled(not building and bool(self.chosen()))
        self.cancel_button.setEnabled(building and not builder.cancelling)
        plan = plan_build(self.chosen(), builder.out_root, rebuild=self.rebuild_check.isChecked())
        for family in self.families:
            estimate = self.estimates.get(family)
            self.estimate_labels[family].setText(f"about {format_duration(estimate.seconds)}" if estimate else "")
            self.state_labels[family].setText(self._family_state(family, plan))
        families = list(state.families) if building else list(plan.build)
        seconds = sum(self.estimates[f].seconds for f in families if f in self.estimates)
        sources = sorted({self.estimates[f].source for f in families if f in self.estimates})
        verb = "Building" if building else "Start builds"
        self.total_label.setText(
            f"{verb} {len(families)} model(s): about {format_duration(seconds)} in all.\nAn estimate from "
            f"{' and '.join(sources)}; a busy machine takes longer." if families else
            (plan.skipped_line().replace(" skipped (", " skipped\n(") or "Tick the families to build."))
        line = builder.status_text().removeprefix("Course models: ").removeprefix("Course models ")
        self.model_label.setText(line[:1].upper() + line[1:] if state is not None else "Not started.")
        self.bar.setValue(int(builder.fraction() * 1000))
        self.ran_label.setText(self._ran_text())
        self._grow()

    def _grow(self) -> None:
        """Taller when what ran needs more lines (a shown window keeps its size otherwise, cutting them)."""
        self.layout().activate()
        wanted = self.sizeHint().height()
        if wanted > self.height():
            self.resize(self.width(), wanted)

    def _family_state(self, family: str, plan: Any) -> str:
        state = self.builder.state
        if state is not None and state.building and family in state.families:
            ran = {f: s for f, _, s in self.builder.history}
            if family in ran:
                return {"finished": "built"}.get(ran[family], ran[family])
            return "building…" if family == state.current else "waiting"
        from lm_workbench.pretrain.course_cards import rebuild_offer

        if family in plan.skipped:
            return "built at this version: skipped"
        folder = _installed(family)
        if folder is not None and rebuild_offer(folder):
            return "built by an earlier version: built again"
        return "built: built again" if folder is not None else "not built yet"

    def _ran_text(self) -> str:
        builder = self.builder
        if builder.state is None:
            return ""
        lines = [f"{family_name(f)}: {'built' if s == 'finished' else s} (run #{run_id})"
                 for f, run_id, s in builder.history]
        if builder.state.skipped:
            lines.append("Skipped (already built): " + ", ".join(family_name(f) for f in builder.state.skipped))
        if builder.state.error:
            lines.append(builder.state.error)
        return "\n".join(lines)


def _installed(family: str) -> Any:
    from lm_workbench.pretrain.course_folders import installed_course_models

    return next((f for f in installed_course_models() if f.name == family), None)

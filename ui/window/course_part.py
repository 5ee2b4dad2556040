"""The window's side of the course models: the build's dialog, its line in the status bar, the first launch's
offer, a model that loads when it arrives, and the model panel's rebuild offer.

- ``open_dialog(families, rebuild)``: the Course models dialog (``lm_workbench.ui.pretrain.course_dialog``) over the
  window's one ``CourseBuilder``;
- the status bar shows "Course models: model 2 of 5 (GPT-2), step 120 of 300, about 0:40 left" and a bar
  while a build runs, then what it did;
- ``offer_first_launch()``: when some course model is missing and the user was never asked, a banner offers to
  build them in the background; either answer (Build / Not now) is saved in the settings
  (``course_models_offer``) and the banner never comes back;
- ``load_failed(spec, exc)``: a model asked for while the build makes it (``CourseModelComing``) says "building,
  2 of 5 done" and loads when it arrives (unless another model was asked for meanwhile);
- ``model_loaded(info)``: a course model older than this version's (its card) gets one line with Rebuild….
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFrame, QLabel, QWidget

from lm_workbench.pretrain.course_build import CourseModelComing
from lm_workbench.ui import theme
from lm_workbench.ui.pretrain.course_builder import CourseBuilder
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, label, slim_progress_bar

SOURCE = "course-models"
OFFER_TEXT = ("The course models (tiny BERT, GPT-2, BART, T5 and ELMo, for the lectures and the views that need "
              "a model of each family) are not built on this machine yet. Build them in the background now "
              "(about {time}, an estimate; the window stays usable)?")


@dataclass(frozen=True)
class CourseServices:
    owner: QWidget  # parent of the dialog
    builder: CourseBuilder
    settings: Any  # lm_workbench.settings.Settings
    save_settings: Callable[[], None]  # (does nothing when the window does not persist)
    status_bar: Any  # QStatusBar: the build's line goes there
    place_banner: Callable[[QWidget], None]  # put the offer's banner in the window
    load: Callable[[str], None]  # load a spec as model A
    load_generation: Callable[[], int]  # changes with every load asked for (ModelSession.load_generation)
    notify: Callable[[str, str, str], None]  # text, level, source
    clear: Callable[[str], None]  # source
    add_panel_note: Callable[[QWidget], None]  # a line under the model panel's facts


class CourseIndicator(QWidget):
    """The status bar's line for the build: its text and a small bar; hidden when no build has run."""

    def __init__(self, builder: CourseBuilder, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.builder = builder
        self.label = QLabel("")
        self.bar = slim_progress_bar()
        self.bar.setRange(0, 1000)
        row(self.label, self.bar, owner=self)
        builder.changed.connect(self.refresh)
        self.hide()

    def refresh(self) -> None:
        text = self.builder.status_text()
        self.label.setText(text)
        self.label.setToolTip(text)
        self.bar.setValue(int(self.builder.fraction() * 1000))
        self.bar.setVisible(self.builder.building)
        self.setVisible(bool(text))

    def text(self) -> str:
        return self.label.text()


class CourseOffer(QFrame):
    """The first launch's banner: the offer, Build in the background, Not now."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("courseOffer")
        self.label = label(text, wrap=True)
        self.build_button = button("Build in the background")
        self.later_button = button("Not now", tip="Build them later from the Pre-train tab (Course models…); this "
                                                  "is not asked again")
        row((self.label, 1), self.build_button, self.later_button, owner=self, margins="message_margins")
        t = theme.current()
        self.setStyleSheet(theme.banner_css("QFrame#courseOffer", t.colours.info, t.metrics.banner_padding))


class RebuildLine(QWidget):
    """The model panel's one line for a course model built by an earlier version, with Rebuild…."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label(wrap=True)
        self.button = button("Rebuild…")
        row((self.label, 1), self.button, owner=self)
        self.family: str | None = None
        self.hide()


class CoursePart(QObject):
    def __init__(self, services: CourseServices) -> None:
        super().__init__(services.owner)
        self.services = s = services
        self.builder = s.builder
        self.dialog: Any = None
        self.offer: CourseOffer | None = None
        self._load_when_built: tuple[str, str, int] | None = None  # (spec, family, load generation) asked for
        # while the build made it
        self.indicator = CourseIndicator(self.builder)
        s.status_bar.insertPermanentWidget(1, self.indicator)  # after the message, before the job's bar and Cancel
        self.rebuild_line = RebuildLine()
        self.rebuild_line.button.clicked.connect(
            lambda: self.open_dialog([self.rebuild_line.family] if self.rebuild_line.family else None, rebuild=True))
        s.add_panel_note(self.rebuild_line)
        self.builder.arrived.connect(self._arrived)
        self.builder.ended.connect(self._ended)

    # -------------------------------------------------------------- dialog
    def open_dialog(self, families: list[str] | None = None, rebuild: bool = False) -> Any:
        """Show the Course models dialog (with ``families`` ticked, all by default); it is returned."""
        from lm_workbench.ui.pretrain.course_dialog import CourseModelsDialog

        if self.dialog is None:
            self.dialog = CourseModelsDialog(self.builder, self.services.owner)
        elif not self.builder.building:
            self.dialog.read_estimates()
        if families is not None and not self.builder.building:
            self.dialog.choose(families, rebuild)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    # --------------------------------------------------------- first launch
    def offer_first_launch(self) -> bool:
        """Offer to build the course models, once ever (see the module docstring); whether it is offered."""
        from lm_workbench.pretrain.course_folders import current_models
        from lm_workbench.pretrain.course_estimate import estimate_total, format_duration
        from lm_workbench.pretrain.course_models import COURSE_SETTINGS

        s = self.services
        missing = [f for f in COURSE_SETTINGS if f not in current_models()]
        if s.settings.course_models_offer or not missing or self.builder.building:
            return False
        seconds, _ = estimate_total(missing)
        self.offer = CourseOffer(OFFER_TEXT.format(time=format_duration(seconds)))
        self.offer.build_button.clicked.connect(lambda: self.answer_offer(True))
        self.offer.later_button.clicked.connect(lambda: self.answer_offer(False))
        s.place_banner(self.offer)
        self.offer.show()
        return True

    def answer_offer(self, build: bool) -> None:
        """The user answered the offer: remembered; with ``build``, the missing models build now."""
        from lm_workbench.engine.errors import WorkbenchError
        from lm_workbench.pretrain.course_models import COURSE_SETTINGS

        s = self.services
        s.settings.course_models_offer = "build" if build else "declined"
        s.save_settings()
        if self.offer is not None:
            self.offer.hide()
            self.offer.deleteLater()
            self.offer = None
        if build:
            try:
                self.builder.start(list(COURSE_SETTINGS))
            except WorkbenchError as exc:
                s.notify(str(exc), "error", SOURCE)

    # ------------------------------------------------------ waiting for one
    def load_failed(self, spec: str, exc: BaseException | None) -> bool:
        """A load of ``spec`` failed with ``exc``: True when it waits for the build (said, and it loads when its
        model arrives)."""
        if not isinstance(exc, CourseModelComing):
            return False
        self._load_when_built = (spec, exc.family, self.services.load_generation())
        self.services.notify(f"{spec}: {exc}", "info", SOURCE)
        return True

    def _arrived(self, family: str, folder: str) -> None:
        waiting = self._load_when_built
        if waiting is not None and waiting[1] == family:
            self._load_when_built = None
            if self.services.load_generation() == waiting[2]:  # no other model was asked for meanwhile
                self.services.clear(SOURCE)
                self.services.load(waiting[0])

    def _ended(self, status: str) -> None:
        waiting = self._load_when_built
        if waiting is not None and status != "finished":
            self._load_when_built = None
            self.services.notify(f"{waiting[0]}: the course-model build was {status} before it was built; build it "
                                 "in the Pre-train tab (Course models…)", "warning", SOURCE)
        if self.dialog is not None and status == "finished":
            self.dialog.read_estimates()

    # ------------------------------------------------------- rebuild offer
    def model_loaded(self, folder: str | None) -> None:
        """Show the rebuild line when ``folder`` (the loaded model's) is a course model older than this version."""
        from lm_workbench.pretrain.course_cards import read_card, rebuild_offer

        line = rebuild_offer(folder) if folder else None
        card = read_card(folder) if line else None
        self.rebuild_line.family = str(card.get("family") or Path(folder).parent.name) if card else None
        self.rebuild_line.label.setText(line or "")
        self.rebuild_line.setVisible(bool(line))

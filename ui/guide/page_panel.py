"""The Guide's page panel: one page's text, its exercise and the feedback, beside the live view it sets up.

The window puts it in a dock at the right of the views (so the text sits beside the view the page opened);
without a window (a test's registry) the Guide tab shows it under its page list. It only shows and asks: the
Guide view (``guide_view.GuideView``) decides what happens.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTextBrowser, QWidget

from lm_workbench.ui.guide.answer_widgets import AnswerBox
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, label


def _label(name: str, wrap: bool = True) -> QLabel:
    widget = label(name=name, wrap=wrap)
    widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return widget


class PagePanel(QWidget):
    next_requested = Signal()
    previous_requested = Signal()
    build_requested = Signal()
    open_model_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guidePagePanel")
        self.setMinimumWidth(0)
        self.where = _label("guideWhere")
        self.title = _label("guideTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.changed = _label("guideChanged")
        self.body = QTextBrowser()
        self.body.setObjectName("guideBody")
        self.body.setOpenExternalLinks(False)
        self.body.setMinimumWidth(0)
        self.problem = _label("guideProblem")
        self.build_button = button("Build the course model…", clicked=self.build_requested)
        self.model_button = button("Open the page's model", clicked=self.open_model_requested)
        problem_row = QWidget()
        row(self.build_button, self.model_button, 1, owner=problem_row)
        self.ask = _label("guideAsk")
        self.answers = AnswerBox()
        self.feedback = _label("guideFeedback")
        self.previous_button = button("◀ Previous", clicked=self.previous_requested)
        self.next_button = button("Next ▶", clicked=self.next_requested)
        nav = QWidget()
        row(self.previous_button, 1, self.next_button, owner=nav)
        column(self, self.where, self.title, self.changed, (self.body, 1), self.problem, problem_row, self.ask,
               self.answers, self.feedback, nav, margins=None, spacing=None)
        self._problem_row = problem_row
        self.show_problem("")

    def show_page(self, where: str, title: str, body: str, changed: bool, ask: str, first: bool, last: bool) -> None:
        self.where.setText(where)
        self.title.setText(title)
        self.changed.setText("This page changed since you last answered it." if changed else "")
        self.changed.setVisible(changed)
        self.body.setMarkdown(body)
        self.ask.setText(f"<b>Exercise.</b> {ask}" if ask else "")
        self.ask.setVisible(bool(ask))
        self.answers.setVisible(bool(ask))
        self.feedback.setText("")
        self.previous_button.setEnabled(not first)
        self.next_button.setEnabled(not last)

    def show_problem(self, text: str, *, build: bool = False, open_model: str = "") -> None:
        """Why the page cannot be shown or answered here, with a Build button (a course model not built) or an
        Open button (the page's model); "" hides it."""
        self.problem.setText(text)
        self.problem.setVisible(bool(text))
        self.build_button.setVisible(bool(text) and build)
        self.model_button.setVisible(bool(text) and bool(open_model))
        self.model_button.setText(f"Open {open_model}" if open_model else "Open the page's model")
        self._problem_row.setVisible(bool(text) and (build or bool(open_model)))

    def show_feedback(self, text: str, correct: bool | None) -> None:
        mark = {True: "✔ ", False: "✘ ", None: ""}[correct]
        self.feedback.setText(mark + text)

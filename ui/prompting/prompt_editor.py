"""The prompt being designed: template, verbalizer, the input(s), with errors shown while typing.

A template's problems (no ``[z]``, an unknown slot, ``[z]`` not last in a
prefix prompt) appear in a line under it as they are typed, the faulty part
selected on request; the verbalizer line shows how the loaded model's
tokenizer splits every answer word, since a multi-token answer is scored
differently from a single token.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui.widgets.controls import combo_box, label, line_edit
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.prompting.state import MULTI_TOKEN_MODES, PromptingState


class PromptEditor(QWidget):
    validity_changed = Signal(bool)  # whether the prompt can be scored as typed

    def __init__(self, state: PromptingState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self._loaded: Any = None
        self.template_edit = line_edit(text=state.template,
                                       tip="[x] the input, [x2] the second text of a pair, [z] the answer slot")
        self.template_error = Notice()
        self.verbalizer_edit = line_edit(text=state.verbalizer, tip="label=answer,answer;label=answer,…")
        self.verbalizer_error = Notice()
        self.tokenizations = label("", name="summary", wrap=True)
        self.x_edit = line_edit("the input [x]", text=state.x)
        self.x2_edit = line_edit("second text [x2] (pairs only)", text=state.x2)
        self.multi_token_combo = combo_box(MULTI_TOKEN_MODES, tip="Masked LMs, answers of several subwords: one mask "
                                           "per subword filled left to right, or the pseudo-log-likelihood (Salazar "
                                           "et al. 2020)")
        self.normalise_check = QCheckBox("Length-normalise")
        self.normalise_check.setToolTip("Divide an answer's summed log-probability by its number of tokens")

        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Template"), 0, 0)
        grid.addWidget(self.template_edit, 0, 1, 1, 3)
        grid.addWidget(self.template_error, 1, 1, 1, 3)
        grid.addWidget(QLabel("Verbalizer"), 2, 0)
        grid.addWidget(self.verbalizer_edit, 2, 1)
        grid.addWidget(self.multi_token_combo, 2, 2)
        grid.addWidget(self.normalise_check, 2, 3)
        grid.addWidget(self.verbalizer_error, 3, 1, 1, 3)
        grid.addWidget(self.tokenizations, 4, 1, 1, 3)
        grid.addWidget(QLabel("Input"), 5, 0)
        grid.addWidget(self.x_edit, 5, 1)
        grid.addWidget(self.x2_edit, 5, 2, 1, 2)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(2, 1)

        self.template_edit.textChanged.connect(state.set_template)
        self.verbalizer_edit.textChanged.connect(state.set_verbalizer)
        self.x_edit.textChanged.connect(lambda _t: state.set_inputs(self.x_edit.text(), self.x2_edit.text()))
        self.x2_edit.textChanged.connect(lambda _t: state.set_inputs(self.x_edit.text(), self.x2_edit.text()))
        self.multi_token_combo.currentTextChanged.connect(lambda mode: state.set_scoring(multi_token=mode))
        self.normalise_check.toggled.connect(lambda on: state.set_scoring(length_normalise=on))
        state.events.prompt_changed.connect(self.refresh)
        self.refresh()

    def set_model(self, loaded: Any) -> None:
        self._loaded = loaded
        self.refresh()

    def problems(self) -> list[Any]:
        return self.state.template_problems()

    def select_problem(self) -> None:
        """Select the faulty part of the template (the first problem's span) and focus the field."""
        problems = self.problems()
        if problems:
            p = problems[0]
            self.template_edit.setFocus()
            self.template_edit.setSelection(p.start, max(0, p.end - p.start))

    def refresh(self) -> None:
        """Show the state's prompt (after a load) and re-check it: errors, tokenizations, validity."""
        s = self.state
        for edit, value in ((self.template_edit, s.template), (self.verbalizer_edit, s.verbalizer),
                            (self.x_edit, s.x), (self.x2_edit, s.x2)):
            if edit.text() != value:
                edit.setText(value)
        if self.multi_token_combo.currentText() != s.multi_token:
            self.multi_token_combo.setCurrentText(s.multi_token)
        if self.normalise_check.isChecked() != s.length_normalise:
            self.normalise_check.setChecked(s.length_normalise)
        problems = s.template_problems()
        if problems:
            text = "; ".join(f"{p.message} (characters {p.start}–{p.end})" for p in problems)
            self.template_error.show_message(text, "error")
        else:
            self.template_error.clear_message()
        verbalizer_problem = s.verbalizer_problem()
        if verbalizer_problem:
            self.verbalizer_error.show_message(verbalizer_problem, "error")
        else:
            self.verbalizer_error.clear_message()
        self.tokenizations.setText(self._tokenizations_text() if not verbalizer_problem else "")
        self.validity_changed.emit(not problems and not verbalizer_problem)

    def _tokenizations_text(self) -> str:
        """"pos: great → great · good → good" per label, in the loaded model's tokens."""
        if self._loaded is None:
            return "Load a model to see how its tokenizer splits each answer."
        from lm_workbench.prompting.for_views import answer_tokenizations, check_model_for
        from lm_workbench.prompting.for_views import Template
        from lm_workbench.prompting.for_views import Verbalizer

        s = self.state
        template = Template(s.template, s.mode) if not s.template_problems() else Template("It was [z]", s.mode)
        try:
            check_model_for(self._loaded, template)  # (an ELMo, a headless encoder: no answers to show)
            answers = answer_tokenizations(self._loaded, template, Verbalizer.parse(s.verbalizer), s.x, s.x2 or None)
        except WorkbenchError:
            return "This model cannot score prompts (see the line above)."
        by_label: dict[str, list[str]] = {}
        for a in answers:
            many = f" ({len(a.tokens)} tokens)" if len(a.tokens) > 1 else ""
            tokens = " ".join(display_label(t) for t in a.tokens)
            by_label.setdefault(a.label, []).append(f"{a.answer} → {tokens}{many}")
        return "\n".join(f"{label}: {' · '.join(shown)}" for label, shown in by_label.items())

"""The Generate page: continue a prompt token by token, each token streaming in with its probability.

Greedy or sampling (temperature, top-k, top-p, seed), a token limit and stop
strings. The job yields each new token as a partial result, so the chips grow
while the model works; Cancel (or Esc) stops it between two tokens.
"""

from __future__ import annotations


from PySide6.QtWidgets import QCheckBox, QPlainTextEdit, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.prompting.token_stream import StreamToken, TokenStream
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, double_spin_box, label, line_edit, spin_box
from lm_workbench.ui.widgets.fold import FlowLayout
from lm_workbench.prompting.state import GenerationSettings, PromptingState


class GeneratePanel(QWidget):
    """Settings, the prompt, Generate / Cancel and the stream of generated tokens."""

    def __init__(self, state: PromptingState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setPlaceholderText("The text to continue (Use prompt fills it from the template)")
        self.prompt_edit.setTabChangesFocus(True)
        theme.bind(self.prompt_edit, lambda w, _m: w.setMaximumHeight(w.fontMetrics().lineSpacing() * 4))
        self.use_prompt_button = button("Use prompt", tip="Fill in the template with the input, cut at the answer slot")
        self.greedy_check = QCheckBox("Greedy")
        self.greedy_check.setChecked(True)
        self.greedy_check.setToolTip("Always the most probable token; untick to sample")
        self.temperature = double_spin_box(0.05, 5.0, 1.0, step=0.1, prefix="T ")
        self.top_k = spin_box(0, 100_000, 0, prefix="top-k ", tip="Sample among the k most probable tokens (0: all)")
        self.top_p = double_spin_box(0.01, 1.0, 1.0, step=0.05, prefix="top-p ",
                                     tip="Sample within the smallest set of tokens whose probability reaches p "
                                         "(1: all)")
        self.seed = spin_box(0, 2**31 - 1, 0, prefix="seed ")
        self.max_tokens = spin_box(1, 2048, 20, prefix="max ", suffix=" tokens")
        self.stop_edit = line_edit("stop strings, | between them",
                                   tip="Generation stops once the text contains one of these (e.g. a full stop: .)")
        self.generate_button = button("Generate")
        self.cancel_button = button("Cancel", enabled=False)
        self.stream = TokenStream("Press Generate: the new tokens appear here as the model produces them; hover one "
                                  "for its probability.")
        self.summary = label("", name="summary", wrap=True)

        options = FlowLayout()  # wraps to the width (presentation mode on a small screen)
        for widget in (self.greedy_check, self.temperature, self.top_k, self.top_p, self.seed):
            options.addWidget(widget)
        column(self, row((self.prompt_edit, 1), self.use_prompt_button), options,
               row(self.max_tokens, (self.stop_edit, 1), self.generate_button, self.cancel_button),
               (self.stream, 1), self.summary, margins=None, spacing=None)
        self.greedy_check.toggled.connect(self._sync_sampling)
        self._sync_sampling()
        state.events.generation_changed.connect(self._show)

    def settings(self) -> GenerationSettings:
        stop = tuple(s for s in self.stop_edit.text().split("|") if s)
        return GenerationSettings(greedy=self.greedy_check.isChecked(), temperature=self.temperature.value(),
                                  top_k=self.top_k.value(), top_p=self.top_p.value(),
                                  max_new_tokens=self.max_tokens.value(), seed=self.seed.value(), stop=stop)

    def set_running(self, running: bool) -> None:
        self.generate_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def _sync_sampling(self) -> None:
        sampling = not self.greedy_check.isChecked()
        for widget in (self.temperature, self.top_k, self.top_p, self.seed):
            widget.setEnabled(sampling)

    def _show(self) -> None:
        s = self.state
        tokens = [StreamToken(text, token_id, prob, "generated") for token_id, text, prob in s.generated]
        shown = self.stream.tokens()
        if len(tokens) == len(shown) + 1 and tokens[:-1] == shown:
            self.stream.append(tokens[-1])  # the usual case while streaming
        elif tokens != shown:
            self.stream.set_tokens(tokens)
        if s.generation_end:
            g = s.generation
            how = "greedy" if g.greedy else (f"sampled with T {g.temperature:g}, top-k {g.top_k}, top-p {g.top_p:g}, "
                                             f"seed {g.seed}")
            self.summary.setText(f"{len(s.generated)} tokens, {how}; {s.generation_end}. Text: "
                                 f"{s.generation_prompt}{s.generated_text()}")
        elif s.generated:
            self.summary.setText(f"Generating… {len(s.generated)} tokens so far.")
        else:
            self.summary.setText("")

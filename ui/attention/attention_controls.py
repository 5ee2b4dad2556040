"""The Attention tab's controls: layer, heads, attention kind, decoder target, display.

``HeadPicker`` is a row of toggle buttons in the heads' line colours (scrolling
sideways in its own row when a model has more heads than fit; in presentation
mode they wrap to more rows instead, so nothing scrolls sideways): a click
selects only that head, Ctrl- or Shift-click adds or removes one, "All"
selects every head. ``AttentionControls`` emits ``changed`` when what is
drawn changes (no model run needed) and ``target_changed`` once typing in
the decoder target pauses (the model must run again).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.colormap import head_color
from lm_workbench.ui.theme_tokens import is_presentation
from lm_workbench.ui.widgets.fold import FlowLayout
from lm_workbench.ui.widgets.boxes import Gap, flush_column, row, themed
from lm_workbench.ui.widgets.controls import (
    combo_box, double_spin_box, label, line_edit, menu_button, spin_box, tool_button,
)
from lm_workbench.ui.widgets.scroll_area import scroll_area

KINDS = [("encoder", "Encoder self-attention"), ("decoder", "Decoder self-attention"), ("cross", "Cross-attention")]
# the first kind, as a model of each family calls it (a decoder-only model's self-attention is no encoder's)
SELF_ATTENTION_LABELS = {"encoder": "Self-attention (bidirectional)", "decoder": "Self-attention (causal)",
                         "encoder-decoder": "Encoder self-attention"}
TARGET_DEBOUNCE_MS = 400
_ADD = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class HeadButton(QToolButton):
    """A head's toggle; remembers the modifiers of the click that toggled it."""

    def __init__(self, head: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.head = head
        self.modifiers = Qt.KeyboardModifier.NoModifier
        self.setText(str(head))
        self.setCheckable(True)
        self.setToolTip(f"Head {head}: click to show only this head, Ctrl+click to add or remove it")
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        self.setStyleSheet(theme.head_button_css(head_color(self.head).name()))

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        self.modifiers = event.modifiers()
        super().mouseReleaseEvent(event)


class HeadPicker(QWidget):
    """"All" and one toggle per head; the toggles scroll sideways inside their own row when there are more
    than fit (GPT-2 XL's 25, a Llama's 32), so the picker never widens the view past the window."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._buttons: list[HeadButton] = []
        self.all_button = tool_button("All", tip="Show every head of the layer",
                                      clicked=lambda: self.set_heads(range(len(self._buttons))))
        self._strip = QWidget()
        self._strip_row = row(owner=self._strip)
        self.scroll = scroll_area(self._strip, frame=False)
        self.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # shrinks to fit; scrolls then
        self._row = row(self.all_button, (self.scroll, 1), owner=self, spacing="compact_spacing")
        theme.bind(self, lambda w, m: w._strip_row.setSpacing(m.compact_spacing))
        self._wraps = False
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        """Presenting, the toggles wrap to more rows (``lm_workbench.ui.widgets.fold.FlowLayout``); else they scroll."""
        wrap = is_presentation(theme.current())
        if wrap != self._wraps:
            self._wraps = wrap
            strip = QWidget()
            strip_row = FlowLayout(strip) if wrap else QHBoxLayout(strip)
            strip_row.setContentsMargins(0, 0, 0, 0)
            if not wrap:
                themed(strip_row, spacing="compact_spacing")
            for b in self._buttons:
                strip_row.addWidget(b)
            self._strip, self._strip_row = strip, strip_row
            self.scroll.setWidget(strip)  # the old strip goes (its buttons moved)
            self.scroll.setHorizontalScrollBarPolicy(
                Qt.ScrollBarPolicy.ScrollBarAlwaysOff if wrap else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as a button, plus the scroll bar's height when the toggles do not all fit; wrapped, as tall
        as their rows."""
        row = max([self.all_button.sizeHint().height()] + [b.sizeHint().height() for b in self._buttons])
        if self._wraps:
            self.scroll.setFixedHeight(max(row, self._strip_row.heightForWidth(self.scroll.viewport().width())))
            return
        scrolls = self._strip.sizeHint().width() > self.scroll.width()  # the layout has placed it by now
        self.scroll.setFixedHeight(row + (self.scroll.horizontalScrollBar().sizeHint().height() if scrolls else 0))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_height()

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.all_button.sizeHint().width() * 3, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802
        # "All", the gap, every toggle: given this width, nothing scrolls and no scroll bar takes a row
        width = self.all_button.sizeHint().width() + self._row.spacing() + self._strip.sizeHint().width()
        return QSize(width, super().sizeHint().height())

    def set_count(self, n: int) -> None:
        if n == len(self._buttons):
            return
        for b in self._buttons:
            self._strip_row.removeWidget(b)
            b.deleteLater()
        self._buttons = [HeadButton(h) for h in range(n)]
        for b in self._buttons:
            b.setChecked(True)
            b.clicked.connect(lambda checked=False, b=b: self._clicked(b))
            self._strip_row.addWidget(b)
        self._fit_height()
        self.updateGeometry()

    def ensure_visible(self, head: int) -> None:
        """Scroll the strip so head ``head``'s toggle shows."""
        self.scroll.ensureWidgetVisible(self._buttons[head])

    def button(self, head: int) -> HeadButton:
        return self._buttons[head]

    def heads(self) -> list[int]:
        return [b.head for b in self._buttons if b.isChecked()]

    def set_heads(self, heads) -> None:
        wanted = set(heads)
        for b in self._buttons:
            b.setChecked(b.head in wanted)
        self.changed.emit()

    def _clicked(self, button: HeadButton) -> None:
        if button.modifiers & _ADD:
            if not self.heads():  # keep at least one head
                button.setChecked(True)
            self.changed.emit()
        else:
            self.set_heads([button.head])


class AttentionControls(QWidget):
    changed = Signal()  # layer, heads, hiding or threshold: redraw only (the kind has its combo's signal)
    target_changed = Signal()  # the decoder target: encode again

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.layer_spin = spin_box(0, 99, 0, prefix="layer ", tip="Which layer's attention (0 = the first layer)")
        self.kind_combo = combo_box([(text, key) for key, text in KINDS],
                                    tip="Decoder and cross-attention exist only in encoder-decoder models")
        self.kind_note = label(name="summary")
        self.target_edit = line_edit("Decoder target (optional; empty: the model's own greedy output)")
        self.target_edit.setClearButtonEnabled(True)
        self.heads = HeadPicker()
        self.hide_special = QCheckBox("Hide special tokens")
        self.hide_special.setToolTip("Drop [CLS], [SEP], <s>… on both sides and renormalise each row to sum to 1")
        self.threshold = double_spin_box(0.0, 1.0, 0.01, decimals=3, step=0.01, prefix="threshold ",
                                         tip="Lines for weights below this are not drawn")
        self.lines_label = label("0 lines drawn", name="summary")
        self.lines_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        theme.bind(self, lambda w, m: w.lines_label.setMinimumWidth(m.lines_label_w))
        self.lines_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.steps_button = tool_button("Step by step",
                                        tip="One head's attention for one query token, from q and k to the output")
        self.export_button = menu_button("Export")  # its menu: the view's (AttentionView._build_export_menu)

        top = row(self.layer_spin, self.kind_combo, self.kind_note, (self.target_edit, 1), (self.lines_label, 1),
                  self.steps_button, self.export_button, spacing="group_spacing")
        self.heads_label = QLabel("Heads")
        second = row(self.heads_label, self.heads, Gap("group_spacing"), self.hide_special, self.threshold, 1,
                     spacing="group_spacing")
        flush_column(self, top, second, spacing="section_spacing")

        self._target_timer = QTimer(self)
        self._target_timer.setSingleShot(True)
        self._target_timer.setInterval(TARGET_DEBOUNCE_MS)
        self._target_timer.timeout.connect(self.target_changed)
        self.target_edit.textChanged.connect(self._target_timer.start)
        self.layer_spin.valueChanged.connect(self.changed)
        self.heads.changed.connect(self.changed)
        self.hide_special.toggled.connect(self.changed)
        self.threshold.valueChanged.connect(self.changed)
        self.set_seq2seq(False)

    # ----------------------------------------------------------------- API
    def kind(self) -> str:
        return self.kind_combo.currentData()

    def target(self) -> str | None:
        text = self.target_edit.text()
        return text if text.strip() and self.target_edit.isEnabled() else None

    def set_family(self, family: str) -> None:
        """Name the self-attention as the loaded model's family has it (GPT-2's is causal, not an encoder's)."""
        self.kind_combo.setItemText(0, SELF_ATTENTION_LABELS.get(family, KINDS[0][1]))

    def set_seq2seq(self, seq2seq: bool) -> None:
        """Decoder/cross kinds and the target only for encoder-decoders."""
        self.kind_combo.setEnabled(seq2seq)
        self.target_edit.setVisible(seq2seq)
        self.target_edit.setEnabled(seq2seq)
        self.kind_note.setVisible(seq2seq)
        if not seq2seq and self.kind_combo.currentIndex() != 0:
            self.kind_combo.setCurrentIndex(0)

    def set_similarity_mode(self, on: bool) -> None:
        """For a model with no attention: only the layer picker (of hidden states 0..L) and export stay."""
        for widget in (self.kind_combo, self.heads_label, self.heads, self.hide_special, self.threshold,
                       self.steps_button):
            widget.setVisible(not on)
        if on:
            self.set_seq2seq(False)
            self.kind_combo.setVisible(False)
            self.lines_label.setText("token similarity: this model has no attention")
            self.lines_label.setToolTip("")
        self.layer_spin.setToolTip("Which layer's token vectors to compare (0 = the input layer)" if on
                                   else "Which layer's attention (0 = the first layer)")

    def set_shape(self, layers: int, heads: int) -> None:
        """Layer range and head buttons for the attention shown (signals held back)."""
        self.blockSignals(True)
        self.layer_spin.blockSignals(True)
        self.layer_spin.setRange(0, max(0, layers - 1))
        self.layer_spin.blockSignals(False)
        self.heads.blockSignals(True)
        self.heads.set_count(heads)
        self.heads.blockSignals(False)
        self.blockSignals(False)

    def set_lines(self, drawn: int, total: int) -> None:
        text = f"{drawn:,} lines drawn"
        self.lines_label.setText(text if drawn == total else f"{text} · {total:,} above the threshold")
        self.lines_label.setToolTip("Hover a token to see only its lines. With very many lines, only the "
                                    "strongest are drawn until you hover a token.")

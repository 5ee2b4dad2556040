"""The Logit lens tab: what each layer would predict if the model stopped there.

A ``QTableView`` over ``LensModel``: a row per layer (embeddings first, the
last layer, which is the model's own output, at the bottom), a column per
input position, each cell the top token and its probability on a background
coloured by that probability; the tooltip lists the top 5. Above it the
"Logit lens | Tuned lens" switch and the tuned lens's training
(``lm_workbench.ui.lens.tuned_panel``), below it the KL to the output per layer of both. While a model B is compared, B's
logit-lens table for the same text shows beside A's (A | B; the tuned lens is A's only), computed in A's job
(``lm_workbench.ui.view_kit.view_base.paired``); a model B the lens cannot read says why in one line.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView, paired
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import label, line_edit
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.reading import read_line
from lm_workbench.ui.widgets.cell_text import PlateDelegate, cell_ink
from lm_workbench.ui.widgets.colormap import color_at, gradient_css
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.lens.lens_columns import LensColumns
from lm_workbench.ui.lens.tuned_panel import KlChart, TunedLensControls
from lm_workbench.lens.view_tasks import MAX_POSITIONS, logit_lens_of_b, read_lenses

TARGET_DEBOUNCE_MS = 400


def _lens_table(model: QAbstractTableModel) -> QTableView:
    table = QTableView()
    table.setObjectName("lensGrid")  # scrolls sideways only where the positions cannot share the width whole
    table.setModel(model)
    table.setItemDelegate(PlateDelegate(table))  # a plate behind text on mid-range cells
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(True)
    table.setShowGrid(True)
    return table


def format_prob(p: float) -> str:
    """Two decimals, or four below 0.01 (so a small probability never reads as 0.00)."""
    return f"{p:.2f}" if p >= 0.01 else f"{p:.4f}"


class LensModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._table: Any = None
        self._font_for: tuple[object, float] | None = None  # (tokens, application size) of _font
        self._font = QFont()

    def _cell_font(self) -> QFont:
        tokens, pt = theme.current(), QFont().pointSizeF()
        if self._font_for is None or self._font_for[0] is not tokens or self._font_for[1] != pt:
            self._font_for, self._font = (tokens, pt), theme.sized_font(QFont(), tokens.fonts.lens_cell_delta)
        return self._font

    def set_table(self, table: Any) -> None:
        self.beginResetModel()
        self._table = table
        self.endResetModel()

    def table(self) -> Any:
        return self._table

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self._table is None else len(self._table.layer_names)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self._table is None else len(self._table.tokens)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        if self._table is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return display_label(self._table.tokens[section])
            return self._table.layer_names[section]
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            return f"position {section}: {self._table.tokens[section]!r}"
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self._table is None:
            return None
        cands = self._table.top[index.row()][index.column()]
        top = cands[0]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{display_label(top.token)}\n{format_prob(top.prob)}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return color_at(top.prob)
        if role == Qt.ItemDataRole.ForegroundRole:
            return cell_ink(color_at(top.prob))[0]
        if role == Qt.ItemDataRole.FontRole:
            return self._cell_font()
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            rows = "".join(f"<tr><td>{i + 1}.</td><td><b>{html.escape(display_label(c.token))}</b></td>"
                           f"<td align='right'>{c.prob:.4f}</td><td>id {c.id}</td></tr>"
                           for i, c in enumerate(cands))
            name = self._table.layer_names[index.row()]
            where = html.escape(display_label(self._table.tokens[index.column()]))
            return f"{name}, after “{where}” (position {index.column()}):<table>{rows}</table>"
        return None


def _legend() -> list[QWidget]:
    """"probability 0 [ramp] 1": the cells' colour scale."""
    return [label("probability  0", name="summary"), label(name="colourBar"), label("1", name="summary")]


NOT_FOR_BILM = ("The logit lens is not available for ELMo: it reads each transformer layer through the model's "
                "output head, and ELMo is a pair of LSTM language models with no such head in the views. "
                "Compare its layers in the Embeddings tab.")

class LensView(ModelView):
    no_model_hint = "Load a model (left) to read its layers through the output head."
    empty_hint = "Type a sentence above to see what each layer would predict."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self._tuned_asked, self._asked = False, 0  # a page's "tuned": true, not started yet; how many asked so far
        self.caption = label("Each cell: the top token if the model stopped after that layer, and its probability.",
                             name="summary", wrap=True)
        self.target_edit = line_edit("Decoder target (optional; empty: the model's own greedy output)")
        self.target_edit.setClearButtonEnabled(True)
        self.target_edit.hide()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TARGET_DEBOUNCE_MS)
        self._timer.timeout.connect(self.inputs_changed)
        self.target_edit.textChanged.connect(self._timer.start)
        self.notice = Notice()
        self.model = LensModel(self)
        self.table = _lens_table(self.model)
        self.model_b = LensModel(self)  # model B's logit lens, while comparing
        self.table_b = _lens_table(self.model_b)
        self.ab = ModelBSplit(self.table, self.table_b)
        self.columns, self.columns_b = LensColumns(self.table), LensColumns(self.table_b)
        legend = _legend()
        self.colour_bar = legend[1]
        top = row((self.caption, 1), (self.target_edit, 1), *legend)
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)
        self.tuned = TunedLensControls(self)  # the logit | tuned switch and training (lm_workbench.ui.lens.tuned_panel)
        self.tuned.mode_changed.connect(lambda _mode: self._show_table())
        self.tuned.ended.connect(self.inputs_changed)  # trained, cancelled or failed: the reading it held back
        self.kl_chart = KlChart()
        column(self, top, self.tuned, self.notice, (self.ab, 1), self.kl_chart)

    # ------------------------------------------------------ presets and workspaces
    # what a guide page, a lecture step or a workspace may set here
    preset_settings = frozenset({"tuned", "tuned_steps"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """``tuned_steps``: the training steps of the tuned lens; ``tuned`` true: show the tuned lens, training it
        on the loaded model first (with progress) unless the run recorded for the same model, steps and corpus
        still has its translators: that one is loaded (``lm_workbench.lens.runs.window_job(reuse=True)``); false:
        the logit lens. It starts once the text's logit lens is shown again (one job at a time in a window)."""
        if "tuned_steps" in settings:
            self.tuned.steps.setValue(int(settings["tuned_steps"]))
        if "tuned" in settings:
            self._tuned_asked = bool(settings["tuned"])
            if not self._tuned_asked:
                self.tuned.set_mode("logit")
                return
            # read the text again first (the host runs it once the page's model and text have settled; any newer
            # job in the window would cancel the training), then train or recall the tuned lens from ``_show``
            self._asked += 1
            self.inputs_changed.emit()

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"tuned": self.tuned.state.mode == "tuned", "tuned_steps": self.tuned.state.steps}, {}

    def _tuned_if_asked(self) -> None:
        """Start (or recall) the tuned lens a page asked for, once a model is loaded and the view is idle."""
        ctx = self.ctx
        if not self._tuned_asked or ctx is None or ctx.loaded is None or ctx.jobs.busy():
            return
        self.tuned.set_model(ctx.loaded)
        if self.tuned.state.training:
            return
        self._tuned_asked = False
        if self.tuned.train_button.isEnabled():  # else a model the tuned lens cannot read (the view says why)
            self.tuned.start_training(reuse=True)

    def _apply_tokens(self) -> None:
        c, m = theme.current().colours, theme.current().metrics
        for table in (self.table, self.table_b):  # the columns' widths: lm_workbench.ui.lens.lens_columns
            table.verticalHeader().setDefaultSectionSize(m.lens_cell_h)
            table.setStyleSheet(f"QTableView {{ gridline-color: {c.base_bg}; }}")
        self.colour_bar.setFixedSize(m.colour_bar_w, m.colour_bar_h)
        self.colour_bar.setStyleSheet(f"background: {gradient_css()}; border: {m.hairline}px solid {c.frame};")

    # ------------------------------------------------------ host interface
    def computation(self, inputs: Inputs) -> Computation | None:
        if self.tuned.state.training:
            return None  # the tuned lens trains on this view's jobs: the reading would replace it; asked again after
        comp = self._computation_a(inputs)
        b = self.ctx.model_b if self.ctx is not None else None
        self.ab.set_models(spec_label(inputs.loaded.info.spec),
                           f"{spec_label(b.info.spec)} · logit lens" if b is not None else None)
        if comp is None or b is None:
            return comp
        text = inputs.text
        return paired(comp, b, lambda cancel: logit_lens_of_b(b, text, cancel), self._show_b)

    def _show_b(self, result: Any) -> None:
        """B's logit-lens table, or the line saying why there is none."""
        reason = result if isinstance(result, str) else ""
        self.ab.show_b_reason(reason)
        self.table_b.setVisible(not reason)
        self.model_b.set_table(None if reason else result)

    def reason_b(self) -> str:
        return self.ab.b_reason()

    def model_b_split(self) -> ModelBSplit:
        return self.ab

    def _computation_a(self, inputs: Inputs) -> Computation | None:
        self.tuned.set_model(inputs.loaded)
        if inputs.loaded.info.family == "biLM":
            self.show_hint(NOT_FOR_BILM)
            return None
        seq2seq = inputs.loaded.info.family == "encoder-decoder"
        self.target_edit.setVisible(seq2seq)
        target = self.target_edit.text() if seq2seq and self.target_edit.text().strip() else None
        loaded, text = inputs.loaded, inputs.text
        tokens = inputs.tokens if inputs.pair is None else None  # the lens reads the text alone
        key = self.tuned.state.folder_key()
        tuned = key[0] if key is not None else None
        return Computation((inputs.model_key, text, target, key, self._asked),
                           lambda cancel: read_lenses(loaded, text, target, tuned, cancel, tokens),
                           self._show, label="Computing the logit lens…")

    def show_hint(self, text: str) -> None:
        self._clear()
        self.notice.show_message(text, "info")
        self._tuned_if_asked()

    def show_failure(self, message: str) -> None:
        self._clear()
        self.notice.show_message(message, "warning")

    def _clear(self) -> None:
        self.tuned.state.clear()
        self.model.set_table(None)
        self.kl_chart.show_curves({})
        self.ab.show_b_reason("")  # B's side goes with A's result (it is computed in the same job)
        self.model_b.set_table(None)

    def _show(self, both: Any) -> None:
        self.tuned.state.show(both)
        self.kl_chart.show_curves(self.tuned.state.kl_curves())
        self._show_table()
        self._tuned_if_asked()

    def _show_table(self) -> None:
        """The grid and its caption for the lens the switch names."""
        table = self.tuned.state.shown_table()
        if table is None:
            return
        self.notice.clear_message()
        window = read_line(table.notes)  # a text longer than the model's window: the tokens it read
        if window:
            self.notice.show_message(window, "info")
        if table.total_positions > len(table.tokens):
            self.notice.show_message(
                f"Showing the first {len(table.tokens)} of {table.total_positions} positions: each position is read "
                f"through the output head at every layer, so this view reads at most {MAX_POSITIONS}. The model "
                f"still read all {table.total_positions}; shorten the text to see the rest." + (f" {window}" if window else ""), "info")
        side = "the decoder's" if table.side == "decoder" else "the encoder's"
        lens = "through its translator, " if table is self.tuned.state.both.tuned else ""
        self.caption.setText(f"Each cell: {side} top token at that position if the model stopped after that "
                             f"layer ({lens}read through the output head), and its probability (the last row is "
                             "the model's own output).")
        self.model.set_table(table)

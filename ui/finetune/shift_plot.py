"""Before/after: how far each layer moved, as 1 - linear CKA (bars) and 1 - mean cosine (line).

Both are 0 for a layer fine-tuning left alone; plotting the distance from 1
keeps the small changes of parameter-efficient methods visible.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.plot_style import range_clear_of_legend

BAR_WIDTH = 0.6  # in layers (data units), not pixels


class ShiftPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.plot = self.graphics.addPlot()
        self.plot.setLabel("bottom", "layer (0 = embeddings)")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.legend = self.plot.addLegend(offset=(-1, 1), colCount=2)  # one row at the top right: room is kept
        self.cka_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, name="1 − linear CKA")
        self.plot.addItem(self.cka_bars)
        self.cosine_curve = self.plot.plot(name="1 − mean cosine")
        flush_column(self, self.graphics)
        self.rows: list[tuple[int, float, float]] = []
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        c, f, m = theme.current().colours, theme.current().fonts, theme.current().metrics
        self.graphics.setBackground(c.base_bg)
        self.plot.setTitle("How far each layer moved (0 = unchanged)",  # the longer title was clipped
                           size=f"{f.pt(f.live_plot_title_delta):g}pt", color=c.label_ink)
        self.plot.getAxis("left").setWidth(m.plot_axis_w)
        self.legend.setLabelTextColor(c.plot_legend_ink)
        self.legend.setBrush(pg.mkBrush(*c.plot_legend_bg))
        self.cka_bars.setOpts(brush=pg.mkBrush(c.shift_cka_curve), pen=pg.mkPen(c.shift_cka_curve))
        self.cosine_curve.setPen(pg.mkPen(c.shift_cosine_curve, width=m.plot_line_width))
        self.cosine_curve.setSymbol("o")
        self.cosine_curve.setSymbolSize(m.plot_small_symbol)
        self.cosine_curve.setSymbolBrush(c.shift_cosine_curve)

    def show_rows(self, rows: list[tuple[int, float, float]]) -> None:
        self.rows = list(rows)
        layers = [r[0] for r in rows]
        self.cka_bars.setOpts(x=layers, height=[1.0 - r[1] for r in rows])
        self.cosine_curve.setData(layers, [1.0 - r[2] for r in rows])
        self.plot.getAxis("bottom").setTicks([[(layer, str(layer)) for layer in layers]])
        self.plot.enableAutoRange(x=True)
        heights = [0.0] + [1.0 - r[1] for r in rows] + [1.0 - r[2] for r in rows]
        self._span = (min(heights), max(heights + [1e-6]))
        self._fit_y()
        QTimer.singleShot(0, self, self._fit_y)  # again once the legend has laid out its new entries

    def _fit_y(self) -> None:
        if getattr(self, "_span", None) is not None:
            range_clear_of_legend(self.plot, *self._span)  # the legend's row above the bars

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_y()

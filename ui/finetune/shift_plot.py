"""Before/after: per layer, linear CKA and mean cosine between the base and the tuned model's states."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui import theme

BAR_WIDTH = 0.6  # in layers (data units), not pixels


class ShiftPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.plot = self.graphics.addPlot()
        self.plot.setLabel("bottom", "layer (0 = embeddings)")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.legend = self.plot.addLegend()
        self.cka_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, name="linear CKA")
        self.plot.addItem(self.cka_bars)
        self.cosine_curve = self.plot.plot(name="mean cosine")
        self.legend.addItem(self.cka_bars, "linear CKA")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.rows: list[tuple[int, float, float]] = []
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        c, f, m = theme.current().colours, theme.current().fonts, theme.current().metrics
        self.graphics.setBackground(c.base_bg)
        self.plot.setTitle("Base vs tuned, per layer: linear CKA (bars) and mean cosine (line); 1 = unchanged",
                           size=f"{f.pt(f.live_plot_title_delta):g}pt", color=c.label_ink)
        self.plot.getAxis("left").setWidth(m.plot_axis_w)
        self.cka_bars.setOpts(brush=pg.mkBrush(c.shift_cka_curve), pen=pg.mkPen(c.shift_cka_curve))
        self.cosine_curve.setPen(pg.mkPen(c.shift_cosine_curve, width=m.plot_line_width))
        self.cosine_curve.setSymbol("o")
        self.cosine_curve.setSymbolSize(m.plot_small_symbol)
        self.cosine_curve.setSymbolBrush(c.shift_cosine_curve)

    def show_rows(self, rows: list[tuple[int, float, float]]) -> None:
        self.rows = list(rows)
        layers = [r[0] for r in rows]
        self.cka_bars.setOpts(x=layers, height=[r[1] for r in rows])
        self.cosine_curve.setData(layers, [r[2] for r in rows])
        if rows:
            self.plot.setYRange(min(0.0, min(min(r[1], r[2]) for r in rows)), 1.05)

"""The Heads tab's per-layer bar chart: each layer's attention heads (summed) and its MLP, beside the embeddings
and the biases, in the units of the metric (logits)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, QTimer
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.plain_plot import plain_plot_item
from lm_workbench.ui.widgets.plot_style import range_clear_of_legend

BAR = 0.38  # each of a layer's two bars, in layer units


def style() -> dict[str, Any]:
    """Every colour and size the chart uses, from the current theme tokens."""
    c, m = theme.current().colours, theme.current().metrics
    return {"attn": c.hover, "mlp": c.segment_b.border, "ends": c.token_id_ink, "legend": c.special_token.ink,
            "background": c.base_bg, "min_height": m.layer_bars_min_h}


class LayerBars(QWidget):
    """``show_dla(dla)`` draws a ``DirectLogitAttribution``; ``clear()`` empties it."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        s = style()
        self.plot = pg.PlotWidget(background=s["background"])
        self.plot.setMinimumHeight(s["min_height"])
        # "direct share (logits)" was longer than a short chart's height: clipped
        item = plain_plot_item(self.plot, None, "logits", si_prefix=False)
        # one row at the top right, above the bars: the y range leaves it room (it covered the bars before)
        item.addLegend(offset=(-10, 5), labelTextColor=s["legend"], colCount=3)
        self._items: list[Any] = []
        self._shown: Any = None
        self._span: tuple[float, float] | None = None  # the bars' lowest and highest value
        self.heights: dict[str, list[float]] = {}  # what the bars show (tests read it)
        flush_column(self, self.plot)
        theme.follow(self, self._restyle)

    def sizeHint(self) -> QSize:  # noqa: N802 (the plot's own hint is tall: the maps above need the height)
        return QSize(400, style()["min_height"])

    def clear(self) -> None:
        item = self.plot.getPlotItem()
        for old in self._items:
            item.removeItem(old)
        if item.legend is not None:
            item.legend.clear()
        self._items, self._shown, self.heights, self._span = [], None, {}, None

    def show_dla(self, dla: Any) -> None:
        self.clear()
        self._shown = dla
        s = style()
        layers = dla.layers
        per_layer = len(dla.attn) // max(1, layers)
        attn = [sum(sum(dla.attn[layer * per_layer + k]) for k in range(per_layer)) for layer in range(layers)]
        x = np.arange(layers, dtype=float) + 1.0
        self.heights = {"attn": attn, "mlp": list(dla.mlp), "ends": [dla.embed, dla.bias]}
        item = self.plot.getPlotItem()
        for bars, name in ((pg.BarGraphItem(x=x - BAR / 2, height=attn, width=BAR, brush=s["attn"], pen=None),
                            "attention heads (sum)"),
                           (pg.BarGraphItem(x=x + BAR / 2, height=dla.mlp, width=BAR, brush=s["mlp"], pen=None),
                            "MLP"),
                           (pg.BarGraphItem(x=[0.0, layers + 1.0], height=[dla.embed, dla.bias], width=2 * BAR,
                                            brush=s["ends"], pen=None), "embeddings, biases")):
            item.addItem(bars)
            self._items.append(bars)
            if item.legend is not None:
                item.legend.addItem(bars, name)
        values = [0.0, *attn, *dla.mlp, dla.embed, dla.bias]
        self._span = (min(values), max(values))
        self._fit_y()
        QTimer.singleShot(0, self, self._fit_y)  # again once the legend has laid out its new entries
        ticks = [(0.0, "embed")] + [(float(i + 1), str(i)) for i in range(layers)] + [(layers + 1.0, "bias")]
        item.getAxis("bottom").setTicks([ticks])
        item.setLabel("bottom", "layer")

    def _fit_y(self) -> None:
        if self._span is not None:
            range_clear_of_legend(self.plot.getPlotItem(), *self._span)

    def resizeEvent(self, event) -> None:  # noqa: N802 (the legend's share of the height changed)
        super().resizeEvent(event)
        self._fit_y()

    def _restyle(self) -> None:
        s = style()
        self.plot.setBackground(s["background"])
        self.plot.setMinimumHeight(s["min_height"])
        if self._shown is not None:
            self.show_dla(self._shown)

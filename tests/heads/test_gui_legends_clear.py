"""Legends stand clear of what they label (issue 49, cosmetic: the Heads chart's and the layer-shift chart's legends
covered bars). The legend's rectangle on screen lies above the top of the tallest bar, at the default type size
and with F5; the Heads chart's y title fits its height and the shift chart's title its width."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, PRESENTATION

pytestmark = pytest.mark.timeout(60)


def _legend_bottom_and_top_of_data(plot_item, legend, tallest: float) -> tuple[float, float]:
    """(the legend's lower edge, the tallest value's height) in the plot's scene coordinates (y grows downwards)."""
    legend_rect = legend.mapRectToScene(legend.boundingRect())
    top = plot_item.getViewBox().mapViewToScene(QPointF(0.0, tallest))
    return legend_rect.bottom(), top.y()


@pytest.mark.parametrize("tokens", [DEFAULT, PRESENTATION])
def test_the_legends_stand_above_the_bars(qtbot, tokens):
    from lm_workbench.ui.finetune.shift_plot import ShiftPlot
    from lm_workbench.ui.heads.dla_plot import LayerBars

    theme.set_tokens(tokens)
    try:
        bars = LayerBars()
        qtbot.addWidget(bars)
        bars.resize(640, 260)
        bars.show()
        dla = SimpleNamespace(layers=4, attn=[[0.5, 1.0], [2.0, 0.1], [0.2, 0.2], [3.0, 0.5]],
                              mlp=[1.0, 0.5, 4.0, 1.5], embed=2.0, bias=0.3)
        bars.show_dla(dla)
        shift = ShiftPlot()
        qtbot.addWidget(shift)
        shift.resize(640, 260)
        shift.show()
        shift.show_rows([(0, 1.0, 1.0), (1, 0.9, 0.95), (2, 0.2, 0.6), (3, 0.1, 0.4)])
        for _ in range(3):
            QApplication.processEvents()
        qtbot.wait(20)
        item = bars.plot.getPlotItem()
        legend_bottom, bar_top = _legend_bottom_and_top_of_data(item, item.legend, 4.0)
        assert legend_bottom <= bar_top  # the MLP's 4.0 bar (and every other) below the legend
        legend_bottom, bar_top = _legend_bottom_and_top_of_data(shift.plot, shift.legend, 0.9)
        assert legend_bottom <= bar_top
        left = item.getAxis("left")
        assert left.label.boundingRect().width() <= item.getViewBox().height()  # the rotated y title fits
        title = shift.plot.titleLabel
        assert title.item.boundingRect().width() <= shift.plot.width()
    finally:
        theme.set_tokens(DEFAULT)

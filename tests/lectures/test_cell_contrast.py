"""Text on coloured cells in presentation mode reaches 7:1 (WCAG 2 AAA): the ink alone where it does, a
plate behind the text where it does not (mid-viridis). The contrast is computed here, from WCAG 2.x's
formulas, not with the theme's own function; the lens table and the attention steps paint what they say."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, PRESENTATION, presentation_tokens


def _linear(channel: int) -> float:
    v = channel / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _luminance(colour: QColor) -> float:
    return 0.2126 * _linear(colour.red()) + 0.7152 * _linear(colour.green()) + 0.0722 * _linear(colour.blue())


def _ratio(a: QColor, b: QColor) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture
def presenting(qapp):
    theme.set_tokens(presentation_tokens(14.0))
    yield
    theme.set_tokens(DEFAULT)


def test_every_viridis_cell_gets_7_to_1_in_presentation_mode(presenting):
    from lm_workbench.ui.widgets.cell_text import cell_ink
    from lm_workbench.ui.widgets.colormap import color_at

    plates = 0
    for value in np.linspace(0.0, 1.0, 257):
        fill = color_at(float(value))
        ink, plate = cell_ink(fill)
        behind = plate if plate is not None else fill
        assert _ratio(ink, behind) >= 7.0, (value, fill.name(), ink.name(), behind.name())
        plates += plate is not None
    assert plates > 0  # mid-viridis reaches 7:1 with neither black nor white: those cells get a plate
    assert _ratio(QColor("#000000"), QColor(PRESENTATION.colours.heatmap_stops[4])) < 7.0  # (why)


def test_a_plate_is_painted_behind_a_number_on_a_mid_viridis_cell(presenting):
    from lm_workbench.ui.widgets.cell_text import draw_cell_text, plate_rect
    from lm_workbench.ui.widgets.colormap import color_at

    fill = color_at(0.5)
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(fill)
    painter = QPainter(image)
    font = QFont()
    font.setPointSizeF(14)
    painter.setFont(font)
    metrics = QFontMetricsF(font)
    cell = QRectF(0, 0, 120, 40)
    draw_cell_text(painter, cell, "0.52", fill, metrics)
    painter.end()
    plate = plate_rect(cell, "0.52", metrics)
    corner = QColor(image.pixel(int(plate.left()) + 2, int(plate.center().y())))  # left of the text, on the plate
    assert corner.name() == PRESENTATION.colours.base_bg
    assert QColor(image.pixel(1, 1)).name() == fill.name()  # the cell keeps its colour around the plate


def test_the_default_theme_keeps_the_better_ink_and_no_plate(qapp):
    from lm_workbench.ui.widgets.cell_text import cell_ink
    from lm_workbench.ui.widgets.colormap import color_at

    theme.set_tokens(DEFAULT)
    ink_colours = (QColor(DEFAULT.colours.ink), QColor(DEFAULT.colours.ink_on_dark))
    for value in np.linspace(0.0, 1.0, 33):
        fill = color_at(float(value))
        ink, plate = cell_ink(fill)
        assert plate is None and _ratio(ink, fill) == max(_ratio(c, fill) for c in ink_colours)

"""Swapping the theme tokens at run time: open views repaint with the new colours, line widths and fonts.

Each test paints a view, swaps in a token set that differs in one visible
place (a colour no default token uses, a bigger font), grabs the widget
again and looks for the new colour's pixels and the old one's absence.
"""

from __future__ import annotations

import dataclasses
import gc
import weakref

import numpy as np
import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from lm_workbench.engine.attention import AttentionSide
from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, Chip, MaskKinds
from lm_workbench.ui.runs.config_diff import ConfigDiff
from lm_workbench.ui.tokens.token_view import TokenView
from lm_workbench.ui.attention.head_view import HeadView
from lm_workbench.ui.masking_lab.grid import PreviewGrid
from lm_workbench.masking_lab.rows import Cell, Row
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.message_bar import MessageBar

pytestmark = pytest.mark.timeout(60)

MAGENTA = "#ff00ff"  # no default token is this colour
LIME = "#00ff00"


@pytest.fixture
def tokens(qapp):
    """Swap tokens inside a test; afterwards the default set and the application's own style come back."""
    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    yield theme.set_tokens
    theme.set_tokens(DEFAULT)
    qapp.setPalette(palette)
    qapp.setFont(font)
    qapp.setStyleSheet(sheet)
    qapp.setProperty("systemFontPt", None)


def shown(qtbot, widget, width: int, height: int):
    """On screen, so a grab paints what the user sees (a hidden widget gets a fresh resize per grab)."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def pixels(widget) -> np.ndarray:
    """[h, w] uint32 ARGB of what the widget paints now."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(image.constBits(), dtype=np.uint32, count=image.sizeInBytes() // 4)
    return arr.reshape(image.height(), image.bytesPerLine() // 4)[:, : image.width()].copy()


def count(arr: np.ndarray, colour: str) -> int:
    return int((arr == np.uint32(QColor(colour).rgba())).sum())


def test_heatmap_repaints_with_a_new_colormap(qtbot, tokens):
    view = shown(qtbot, HeatmapView(), 300, 260)
    view.set_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "b"], ["a", "b"], title="t")
    top = DEFAULT.colours.heatmap_stops[-1]  # the colour of the largest value
    before = pixels(view)
    assert count(before, top) > 100 and count(before, MAGENTA) == 0

    tokens(DEFAULT.replace(heatmap_stops=(LIME, MAGENTA)))
    after = pixels(view)
    assert count(after, MAGENTA) > 100  # the diagonal cells (and the top of the legend)
    assert count(after, LIME) > 100  # the off-diagonal cells
    assert count(after, top) == 0


def test_head_view_lines_take_the_new_head_colours_and_width(qtbot, tokens):
    n = 4
    weights = np.eye(n)[None, None]  # one layer, one head: each token attends to itself with weight 1
    names = ["a", "b", "c", "d"]
    side = AttentionSide(weights, names, names, [False] * n, [False] * n, [0] * n, [0] * n)
    view = shown(qtbot, HeadView(), 420, 200)
    view.set_side(side)
    view.set_selection(0, [0], threshold=0.0)
    old = DEFAULT.colours.head_colors[0]
    thin = count(pixels(view), old)
    assert thin > 50 and count(pixels(view), MAGENTA) == 0

    tokens(DEFAULT.replace(head_colors=(MAGENTA,), head_line_width=4.0))  # weight-1 lines: 4 + 3 px wide
    after = pixels(view)
    assert count(after, old) == 0
    assert count(after, MAGENTA) > 1.5 * thin  # the same lines, drawn wider


def _tokenized() -> TokenizedText:
    tokens = ["[CLS]", "hello", "world", "[SEP]"]
    return TokenizedText(text="hello world", pair=None, ids=[1, 2, 3, 4], tokens=tokens,
                         offsets=[(0, 0), (0, 5), (6, 11), (0, 0)], word_ids=[None, 0, 1, None],
                         segments=[None, 0, 0, None], special=[True, False, False, True])


def test_token_chips_and_fonts_follow_a_swap(qtbot, qapp, tokens):
    view = shown(qtbot, TokenView(), 500, 160)
    view.set_tokenized(_tokenized())
    label = QLabel("a label")
    qtbot.addWidget(label)
    fill = DEFAULT.colours.segment_a.fill
    assert count(pixels(view), fill) > 100
    app_pt = QApplication.font().pointSizeF()
    width_before = view.chip_rect(1).width()

    big = DEFAULT.replace(segment_a=Chip(MAGENTA, "#000000", "#000000"), base_pt=app_pt + 10)
    tokens(big)
    assert count(pixels(view), MAGENTA) > 100 and count(pixels(view), fill) == 0
    assert QApplication.font().pointSizeF() == pytest.approx(app_pt + 10)
    assert label.font().pointSizeF() == pytest.approx(app_pt + 10)
    assert view._token_font.pointSizeF() == pytest.approx(app_pt + 10 + DEFAULT.fonts.token_delta)
    assert view.chip_rect(1).width() > width_before  # laid out again in the bigger font


def test_masking_lab_rows_and_message_bar_restyle(qtbot, tokens):
    grid = shown(qtbot, PreviewGrid(), 400, 80)
    grid.set_bands([[Row("input", "input", [Cell("the", 1, "unchanged", ""), Cell("[MASK]", 2, "masked", "")])]])
    old = DEFAULT.colours.mask_kinds.masked.fill
    assert count(pixels(grid), old) > 100
    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.show_error("broken")

    kinds = dataclasses.replace(MaskKinds(), masked=Chip(MAGENTA, "#000000", "#000000"))
    tokens(DEFAULT.replace(mask_kinds=kinds, error=Chip(LIME, "#000000", "#000000")))
    after = pixels(grid)
    assert count(after, MAGENTA) > 100 and count(after, old) == 0
    assert LIME in bar.styleSheet() and DEFAULT.colours.error.fill not in bar.styleSheet()


def test_bound_sizes_follow_a_swap_and_do_not_keep_their_widget_alive(qtbot, tokens):
    diff = ConfigDiff()
    qtbot.addWidget(diff)
    rows = diff.table.verticalHeader()
    assert rows.defaultSectionSize() == DEFAULT.metrics.table_row_h
    tokens(DEFAULT.replace(table_row_h=41, row_spacing=13))
    assert rows.defaultSectionSize() == 41
    assert diff.layout().spacing() == 13

    loose = QWidget()  # no parent, no other reference: its binding must not keep it
    theme.bind(loose, lambda w, m: w.setMinimumWidth(m.eta_label_w))
    assert loose.minimumWidth() == DEFAULT.metrics.eta_label_w
    ref = weakref.ref(loose)
    del loose
    gc.collect()
    assert ref() is None


def test_a_destroyed_widget_stops_following(qtbot, tokens):
    view = HeatmapView()
    view.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not _alive(view)
    tokens(DEFAULT.replace(heatmap_stops=(LIME, MAGENTA)))  # would raise on a deleted C++ object


def _alive(widget) -> bool:
    from shiboken6 import isValid

    return isValid(widget)


def test_replace_names_any_token_and_rejects_unknown_ones():
    big = DEFAULT.replace(base_pt=16.0, plot_line_width=3.0, hover="#123456")
    assert (big.fonts.base_pt, big.metrics.plot_line_width, big.colours.hover) == (16.0, 3.0, "#123456")
    assert DEFAULT.fonts.base_pt == 10.0  # the default set is untouched
    with pytest.raises(TypeError, match="no theme token"):
        DEFAULT.replace(no_such_token=1)

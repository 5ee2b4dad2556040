"""Presentation mode on the screens lecture halls have (1024 × 768, 1280 × 720, 1920 × 1080): the model dock,
the menu bar and the About panel fold away and come back as they were; the font follows the screen's
height; no registered view scrolls sideways and every token chip lies inside the visible area; a status
message stays with the tab that wrote it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, is_presentation, presentation_pt

pytestmark = pytest.mark.timeout(180)
SIZES = ((1024, 768), (1280, 720), (1920, 1080))
SENTENCE = "The bank raised interest rates; unbelievably, we sat on the river bank all afternoon long."


def _settle(qtbot, window) -> None:
    """Let the layouts (and a view's computation on the tiny model) finish."""
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=30000)
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(20)


def _sideways(window) -> list[str]:
    """Every visible horizontal scroll bar in the window, named by its scroll area and that one's parent.

    The one exception: the logit lens's grid scrolls when its positions, sharing the width, could not each show
    a probability whole (they were cut to "0.…"; issue 36); checked here against the font's own width."""
    found = []
    for area in window.findChildren(QAbstractScrollArea):
        if area.objectName() == "lensGrid" and _lens_too_narrow_to_share(area):
            continue
        if area.isVisible() and area.horizontalScrollBar().isVisible():
            parent = area.parentWidget()
            found.append(f"{type(area).__name__} in {type(parent).__name__ if parent else None}")
    return found


def _lens_too_narrow_to_share(table) -> bool:
    from PySide6.QtGui import QFontMetrics

    if table.model().columnCount() == 0:
        return False
    metrics = QFontMetrics(table.model().data(table.model().index(0, 0), Qt.ItemDataRole.FontRole))
    return table.model().columnCount() * metrics.horizontalAdvance("0.0000") > table.viewport().width()


def _nested_vertical(window) -> list[str]:
    """Every form folded above its results (the side of a ``FoldSplitter`` that scrolls: Fine-tune's, Pre-train's)
    showing a vertical scroll bar inside a page that shows one too (two bars side by side at 1024 with F5)."""
    from PySide6.QtWidgets import QScrollArea

    from lm_workbench.ui.widgets.fold import FoldSplitter

    found = []
    for area in window.findChildren(QScrollArea):
        if not isinstance(area.parentWidget(), FoldSplitter) or area.parentWidget().orientation() != Qt.Orientation.Vertical:
            continue
        if not (area.isVisible() and area.verticalScrollBar().isVisible()):
            continue
        outer = area.parentWidget()
        while outer is not None:
            if isinstance(outer, QScrollArea) and outer.verticalScrollBar().isVisible():
                found.append(f"{type(area).__name__} ({area.objectName()}) in {outer.objectName() or type(outer).__name__}")
                break
            outer = outer.parentWidget()
    return found


def _crowded_numbers(window) -> list[str]:
    """Every visible vertical axis whose numbers stand closer than one line of its font (written over one
    another): the pixel distance between two neighbouring major ticks, from the axis's own range and height."""
    from PySide6.QtGui import QFontMetrics

    found = []
    for axis in _axes(window):
        if axis.orientation != "left" or not axis.isVisible() or not axis.style["showValues"] or axis.height() <= 0:
            continue
        low, high = axis.range
        levels = axis.tickValues(low, high, axis.height())
        if not levels or len(levels[0][1]) < 2:
            continue
        spacing_px = levels[0][0] / abs(high - low) * axis.height()
        line = QFontMetrics(axis.style["tickFont"] or QApplication.font()).height()
        if axis.height() >= 3 * line and spacing_px < line:  # (an axis too short for two numbers shows one)
            found.append(f"{axis.labelText or 'axis'} of {type(axis.scene().views()[0].parentWidget()).__name__}: "
                         f"{spacing_px:.0f} px between numbers, line {line} px, {type(axis.tickSpacing).__name__}")
    return found


def _axes(window) -> list:
    """Every axis of every plot in the window."""
    import pyqtgraph as pg

    return [item for view in window.findChildren(pg.GraphicsView) if view.scene() is not None
            for item in view.scene().items() if isinstance(item, pg.AxisItem)]


def _indicator(check) -> int:
    """The height of a check box's box as the style draws it now."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    option = QStyleOptionButton()
    check.initStyleOption(option)
    return check.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, check).height()


def _legends(window) -> list:
    """Every legend of every plot in the window."""
    import pyqtgraph as pg

    return [item for view in window.findChildren(pg.GraphicsView) if view.scene() is not None
            for item in view.scene().items() if isinstance(item, pg.LegendItem)]


def _activate(qtbot, window) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def test_presentation_fits_each_lecture_hall_screen_and_folds_back(open_window, qtbot, tiny_models, restore_style):
    window = open_window(str(tiny_models["bert"]), "tokens", size=(1280, 800))
    window.text_input.set_text(SENTENCE)
    panel = window.view("tokens")
    qtbot.waitUntil(lambda: bool(panel.view.tokens()), timeout=30000)
    _settle(qtbot, window)
    window.resizeDocks([window.model_dock], [333], Qt.Orientation.Horizontal)
    _settle(qtbot, window)
    dock_w = window.model_dock.width()
    about_h = window.about_panel.height()
    assert window.model_dock.isVisible() and window.menuBar().isVisible() and window.about_panel.is_expanded()

    # A status message belongs to the tab that wrote it
    window.status.set_message("Map of 202 occurrences")
    window.show_view("finetune")
    assert window.status.message() == "Ready"
    window.show_view("tokens")
    assert window.status.message() == "Map of 202 occurrences"
    window.view_host.context("lens").status("Computing the logit lens: done in 0.10 s")  # ends after a tab change
    assert window.status.message() == "Map of 202 occurrences"
    window.show_view("lens")  # the lens's own message (it computes again on show: its label, then its time)
    _settle(qtbot, window)
    assert window.status.message().startswith("Computing the logit lens: done in ")
    window.show_view("tokens")

    check = window.view("attention").controls.hide_special
    box_before = _indicator(check)
    _activate(qtbot, window)
    for n, (width, height) in enumerate(SIZES):
        window.presentation.screen_height = lambda height=height: height
        if n == 0:
            qtbot.keyClick(window, Qt.Key.Key_F5)
            assert "F6" in window.status.message() and "F10" in window.status.message()  # said once
        else:
            window.presentation_fit.refit()
        assert is_presentation(theme.current())
        assert theme.current().fonts.base_pt == presentation_pt(height)
        assert QApplication.font().pointSizeF() == pytest.approx(presentation_pt(height))
        window.resize(width, height)
        _settle(qtbot, window)
        window.resize(width, height)  # the second time the folded-away parts no longer hold it wider
        _settle(qtbot, window)
        assert (window.width(), window.height()) == (width, height)
        assert not window.model_dock.isVisible() and not window.menuBar().isVisible()
        assert not window.about_panel.is_expanded()
        bar = window.views.tabBar()  # every tab's name whole (short where the full ones do not fit), never "T…"
        assert all(bar.tabText(i) in (e.title, e.short_title) for i, e in enumerate(window.view_host.entries()))
        assert all(bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(i))
                   for i in range(bar.count()))
        axes = _axes(window)
        assert axes and all(axis.label.font().pointSizeF() == pytest.approx(presentation_pt(height)) for axis in axes)
        assert all(axis.textPen().color().name() == theme.current().colours.plot_axis_ink for axis in axes)
        assert _indicator(check) > box_before  # check boxes grow with F5 too
        legends = _legends(window)  # legends grow with F5 as the axes do (issue 36: 8 px legends at 1080p)
        assert legends and all(legend.opts["labelTextSize"] == f"{presentation_pt(height):g}pt" for legend in legends)
        for entry in window.view_host.entries():
            window.show_view(entry.id)
            _settle(qtbot, window)
            assert _sideways(window) == [], f"{entry.id} scrolls sideways at {width} × {height}"
            assert _nested_vertical(window) == [], f"{entry.id}: a scroll bar inside a scroll bar at {width} × {height}"
            assert _crowded_numbers(window) == [], f"{entry.id}: numbers over one another at {width} × {height}"
        window.show_view("tokens")
        _settle(qtbot, window)
        visible = panel.scroll.viewport().rect()
        for i in range(len(panel.view.tokens())):
            chip = panel.view.chip_rect(i).toAlignedRect()
            shown = QRect(panel.view.mapTo(panel.scroll.viewport(), chip.topLeft()), chip.size())
            assert shown.left() >= 0 and shown.right() <= visible.right(), (i, shown, visible, width)

    # While presenting, F6 brings the model dock back (and away), F10 the menu bar
    _activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F6)
    assert window.model_dock.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F6)
    assert not window.model_dock.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F10)
    assert window.menuBar().isVisible()

    # F5 off: everything as it was, the dock at its earlier width
    window.resize(1280, 800)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    _settle(qtbot, window)
    assert theme.current() is DEFAULT
    assert window.model_dock.isVisible() and window.menuBar().isVisible() and window.about_panel.is_expanded()
    qtbot.waitUntil(lambda: window.model_dock.width() == dock_w, timeout=3000)
    qtbot.waitUntil(lambda: window.about_panel.height() == about_h, timeout=3000)  # the height it had before F5
    assert window.views.usesScrollButtons()
    assert all(axis.label.font().pointSizeF() == pytest.approx(QApplication.font().pointSizeF())
               for axis in _axes(window))


def test_f6_while_presenting_never_grows_the_window(open_window, qtbot, restore_style):
    """At 1280 × 720 with F5, F6 shows the model dock inside the window: the dock's panel scrolls up and down
    instead of asking for more height than the screen has (it asked for 835 px); F6 again leaves it as it was."""
    window = open_window(None, "tokens", size=(1280, 720))
    window.presentation.screen_height = lambda: 720
    _activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    _settle(qtbot, window)
    window.resize(1280, 720)
    _settle(qtbot, window)
    assert (window.width(), window.height()) == (1280, 720)
    qtbot.keyClick(window, Qt.Key.Key_F6)
    _settle(qtbot, window)
    assert window.model_dock.isVisible()
    assert window.minimumSizeHint().height() <= 720 and window.minimumSizeHint().width() <= 1280
    assert (window.width(), window.height()) == (1280, 720)
    assert window.model_panel.load_button.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F6)
    _settle(qtbot, window)
    assert not window.model_dock.isVisible() and (window.width(), window.height()) == (1280, 720)

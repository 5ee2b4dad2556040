"""The window's tab bar at lecture-hall sizes (issue 36: "Tab names cut to "To…", "Atte…" at 1024 × 768"): every
tab shows a whole name, its full title where all fit and its short title where they do not, never an elided
one; the bar scrolls rather than cut, the current tab is always in sight, and the corner's list reaches every
view."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(120)


def _settle(qtbot) -> None:
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(30)


def _shown(window) -> list[str]:
    return [window.views.tabText(i) for i in range(window.views.count())]


def _whole(window) -> None:
    """Each tab is wide enough for its whole text (Qt draws it elided otherwise)."""
    bar = window.views.tabBar()
    assert window.views.elideMode() == Qt.TextElideMode.ElideNone
    for i in range(bar.count()):
        assert bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(i)), bar.tabText(i)


def test_short_names_when_full_titles_do_not_fit_and_full_ones_when_they_do(open_window, qtbot):
    window = open_window(view="tokens", size=(1024, 768))
    entries = window.view_host.entries()
    _settle(qtbot)
    bar = window.views.tabBar()
    # Independently of the widget's own sums: the full titles' text alone is wider than the bar at 1024 × 768
    assert sum(bar.fontMetrics().horizontalAdvance(e.title) for e in entries) > window.views.width()
    assert _shown(window) == [e.short_title for e in entries]
    assert any(e.short_title != e.title for e in entries)
    _whole(window)
    # The last tab, chosen, is scrolled into the bar's sight whole
    window.show_view(entries[-1].id)
    _settle(qtbot)
    current = bar.tabRect(bar.currentIndex())
    assert bar.rect().contains(current), (current, bar.rect())
    # Tooltips give the full title and the shortcut
    index = [e.id for e in entries].index("attention")
    assert window.views.tabToolTip(index) == "Attention (Ctrl+2)"

    window.model_dock.hide()
    window.resize(2400, 900)
    qtbot.waitUntil(lambda: _shown(window) == [e.title for e in entries], timeout=5000)
    _whole(window)


def test_the_corner_list_names_every_view_and_goes_to_it(open_window, qtbot):
    window = open_window(view="tokens", size=(1024, 768))
    entries = window.view_host.entries()
    button = window.tab_names.list_button
    assert window.views.cornerWidget(Qt.Corner.TopRightCorner) is button and button.isVisible()
    menu = window.tab_names.menu
    menu.aboutToShow.emit()
    actions = menu.actions()
    assert [a.text() for a in actions] == [e.title for e in entries]
    assert [a.isChecked() for a in actions] == [e.id == "tokens" for e in entries]
    runs = actions[[e.id for e in entries].index("runs")]
    assert runs.shortcut().toString() == "Ctrl+R"
    runs.trigger()
    assert window.view_host.current_entry().id == "runs"

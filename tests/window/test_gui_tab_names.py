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
    # Tooltips give the full title, the short one where it is not a word of it, and the shortcut
    index = [e.id for e in entries].index("attention")
    assert window.views.tabToolTip(index) == "Attention (Attn), Ctrl+2"
    assert window.views.tabToolTip([e.id for e in entries].index("lens")) == "Logit lens, Ctrl+4"

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
    assert [a.text() for a in actions] == [e.menu_title for e in entries]
    assert [a.isChecked() for a in actions] == [e.id == "tokens" for e in entries]
    runs = actions[[e.id for e in entries].index("runs")]
    assert runs.shortcut().toString() == "Ctrl+R"
    runs.trigger()
    assert window.view_host.current_entry().id == "runs"


@pytest.mark.parametrize("title, short, menu", [
    ("Retrieval", "Search", "Retrieval (Search)"),  # issue 49: the bar said Search, the View menu Retrieval
    ("Fine-tune", "Tune", "Fine-tune (Tune)"),  # a hyphenated word is one word
    ("Pre-train", "Train", "Pre-train (Train)"),
    ("Compare", "A | B", "Compare (A | B)"),
    ("Logit lens", "Lens", "Logit lens"),  # a word of the title
    ("Embeddings", "Embed", "Embeddings"),  # the start of it
    ("Masking lab", "Mask", "Masking lab"),
    ("Tokens", "Tokens", "Tokens"),
])
def test_a_short_name_that_is_not_a_word_of_the_title_is_named_beside_it_in_menus(title, short, menu):
    from lm_workbench.ui.view_kit.view_entry import ViewEntry

    entry = ViewEntry("v", title, "", "some.module:View", short_title=short)
    assert entry.menu_title == menu


def test_the_view_menu_and_the_bar_name_each_view_one_way(open_window, qtbot):
    """Every name the bar can show (full or short) appears in that view's View-menu entry and corner-list entry."""
    window = open_window(view="tokens", size=(1024, 768))
    _settle(qtbot)
    entries = window.view_host.entries()
    go_to = window.actions_.go_to
    for i, entry in enumerate(entries):
        menu_text = go_to[entry.id].text().replace("&", "")
        assert entry.title in menu_text and entry.short_title.lower() in menu_text.lower(), (entry.id, menu_text)
        assert window.views.tabText(i) in (entry.title, entry.short_title)
    assert go_to["retrieval"].text().replace("&", "") == "Retrieval (Search)"

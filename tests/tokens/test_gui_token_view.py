"""The token view's layout and hover text, on hand-made tokenizations (no model)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.tokens.token_view import TokenView

pytestmark = pytest.mark.timeout(60)


def _tokenized(pair: bool = False) -> TokenizedText:
    # "[CLS] un ##believ ##ably good [SEP] (yes [SEP])"
    text, second = "unbelievably good", "yes"
    tokens = ["[CLS]", "un", "##believ", "##ably", "good", "[SEP]"]
    offsets = [(0, 0), (0, 2), (2, 8), (8, 12), (13, 17), (0, 0)]
    word_ids = [None, 0, 0, 0, 1, None]
    segments = [None, 0, 0, 0, 0, None]
    if pair:
        tokens += ["yes", "[SEP]"]
        offsets += [(0, 3), (0, 0)]
        word_ids += [0, None]
        segments += [1, None]
    return TokenizedText(
        text=text, pair=second if pair else None, ids=list(range(100, 100 + len(tokens))), tokens=tokens,
        offsets=offsets, word_ids=word_ids, segments=segments, special=[s is None for s in segments],
    )


@pytest.fixture
def view(qtbot) -> TokenView:
    v = TokenView()
    qtbot.addWidget(v)
    v.resize(600, 200)
    v.show()
    return v


def test_subwords_of_a_word_share_one_box(view):
    tt = _tokenized(pair=True)
    view.set_tokenized(tt)
    assert view.tokens() == tt.tokens
    assert view.word_groups() == [[0], [1, 2, 3], [4], [5], [6], [7]]
    layout = view._current_layout()
    assert [b.chips for b in layout.boxes] == view.word_groups()
    kinds = [b.kind for b in layout.boxes]
    assert kinds == ["special", "a", "a", "special", "b", "special"]
    r1, r2, r3 = (view.chip_rect(i) for i in (1, 2, 3))
    assert r1.right() == r2.left() and r2.right() == r3.left()  # touching inside a word
    assert view.chip_rect(4).left() > r3.right()  # a gap between words
    view.grab()  # paints


def test_rows_wrap_to_the_width(view):
    tt = _tokenized()
    view.set_tokenized(tt)
    view.resize(120, 300)
    rects = [view.chip_rect(i) for i in range(len(tt))]
    assert all(r.right() <= 120 for r in rects if r.width() < 100)
    assert len({round(r.top()) for r in rects}) > 1
    assert view.heightForWidth(120) > view.heightForWidth(2000)


def test_hover_text_and_tooltip_event(view, qtbot):
    tt = _tokenized(pair=True)
    view.set_tokenized(tt)
    text = view.tooltip_text(2)
    assert "##believ" in text and "id 102" in text and "characters 2–8" in text and "believ" in text
    assert "subword 2 of 3" in text
    assert "special token" in view.tooltip_text(0)
    assert "of the pair" in view.tooltip_text(6)
    center = view.chip_rect(2).center().toPoint()
    event = QHelpEvent(QEvent.Type.ToolTip, center, view.mapToGlobal(center))
    QApplication.sendEvent(view, event)
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "##believ" in QToolTip.text()
    QToolTip.hideText()
    assert view.index_at(-5, -5) is None


def test_hint_instead_of_tokens(view):
    assert view.tokens() == [] and view.word_groups() == []
    view.show_hint("Nothing to show")
    assert view.hint() == "Nothing to show"
    view.set_tokenized(_tokenized())
    assert view.hint() is None
    view.grab()


def test_display_labels_make_markers_visible():
    assert display_label("Ġbank") == "␣bank"
    assert display_label("▁the") == "␣the"
    assert display_label("##ly") == "##ly"
    assert display_label("") == "∅"


def test_hovering_a_chip_outlines_it_until_the_mouse_leaves(view, qtbot):
    view.set_tokenized(_tokenized())
    assert view.hovered_part() is None and view.hover_text() == ""
    qtbot.mouseMove(view, view.chip_rect(4).center().toPoint())
    qtbot.waitUntil(lambda: view.hovered_part() == 4, timeout=2000)
    assert view.hover_text() == view.tooltip_text(4)
    before = view.grab().toImage()
    QApplication.sendEvent(view, QEvent(QEvent.Type.Leave))
    assert view.hovered_part() is None and view.hover_text() == ""
    assert view.grab().toImage() != before  # the outline is gone
    # A tooltip event between chips hides the tip and shows none.
    corner = QPoint(1, 1)
    event = QHelpEvent(QEvent.Type.ToolTip, corner, view.mapToGlobal(corner))
    QApplication.sendEvent(view, event)
    assert not QToolTip.isVisible() and not event.isAccepted()

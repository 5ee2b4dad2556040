"""One ranked list of passages (model A, model B or BM25): rank, score, id and the passage with the query's
words highlighted, under a title line."""

from __future__ import annotations

import html
import re
from typing import Any, Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QTextBrowser, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column


ROOM_LINES = 16  # a list's least height, in lines of its font: three passages of three or four lines


def highlight_html(text: str, words: Sequence[str]) -> str:
    """``text`` as HTML with every whole-word, case-insensitive occurrence of ``words`` highlighted."""
    words = sorted({w for w in words if w}, key=len, reverse=True)
    if not words:
        return html.escape(text)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    c = theme.current().colours
    style = f"background:{c.word_highlight_bg}; font-weight:600; color:{c.ink}"
    out, last = [], 0
    for m in pattern.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        out.append(f"<span style='{style}'>{html.escape(m.group(0))}</span>")
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def passage_html(hit: Any, words: Sequence[str]) -> str:
    """The passage with its title (when the corpus has titles) set apart in bold, not run into the text
    ("Dogs Dogs are…" read as one sentence; issue 49, cosmetic)."""
    title = getattr(hit, "title", "") or ""
    text = hit.text
    if title and text.startswith(title):
        rest = text[len(title):].strip()
        return (f"<b>{highlight_html(title, words)}</b>" + (f" — {highlight_html(rest, words)}" if rest else ""))
    return highlight_html(text, words)


class HitList(QWidget):
    def __init__(self, title: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.title = label(title, wrap=True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.hits: list[Any] = []
        self.words: list[str] = []
        flush_column(self, self.title, (self.browser, 1))
        theme.follow(self, self._restyle)
        # room for about three passages of a few lines each at any type size (issue 49.6: one passage per list
        # at 1024 × 768 with F5); the tab scrolls when the window is shorter
        self._fit_height()

    def _fit_height(self) -> None:
        self.browser.setMinimumHeight(self.browser.fontMetrics().lineSpacing() * ROOM_LINES + 8)

    def changeEvent(self, event: QEvent) -> None:  # F5 on and off: room for the new type size
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()

    def _restyle(self) -> None:
        if self.hits:
            self.show_hits(self.hits, self.words)

    def set_title(self, title: str) -> None:
        self.title.setText(title)

    def show_hits(self, hits: Sequence[Any], words: Sequence[str]) -> None:
        """``hits`` (``lm_workbench.retrieval.view_tasks.Hit``) best first, ``words`` highlighted."""
        self.hits, self.words = list(hits), list(words)
        c = theme.current().colours
        rows = []
        for h in self.hits:
            rows.append(f"<tr><td align='right'>{h.rank}.</td><td align='right'><b>{h.score:.3f}</b></td>"
                        f"<td style='color:{c.muted_ink}'>{html.escape(h.id)}</td>"
                        f"<td>{passage_html(h, self.words)}</td></tr>")
        self.browser.setHtml("<table cellspacing='0' cellpadding='3'>" + "".join(rows) + "</table>" if rows else "")

    def show_text(self, text: str) -> None:
        self.hits = []
        self.browser.setPlainText(text)

    def plain_rows(self) -> list[str]:
        """Each hit as ``rank. score id text`` (for the clipboard and CSV)."""
        return [f"{h.rank}. {h.score:.4f} {h.id} {h.text}" for h in self.hits]

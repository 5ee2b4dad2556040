"""Where a fine-tuning method attaches inside one transformer block, drawn with QPainter.

Top to bottom: the embeddings, then one block (repeated L times): attention's
Q, K and V projections (prefix tuning's extra keys and values beside them),
the attention output (a parallel adapter's box beside it), add & LayerNorm,
the feed-forward block's two matrices (a parallel adapter beside them),
add & LayerNorm; then the layer outputs (which the feature-based method mixes)
and the task head. The method's ``Attachment.sites`` are filled in the theme's
site colour (modules it adds) or its unfrozen colour (existing weights it
trains); the two residual paths are drawn on the left; the formula and the
residual line are written underneath.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.ui import theme

# (site, label) per row; a row with several boxes sits side by side
ROWS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("embeddings", "Embeddings (+ virtual tokens)"),),
    (("prefix", "Prefix Pₖ, Pᵥ"), ("query", "Q"), ("key", "K"), ("value", "V")),
    (("attention_output", "Attention output W_O"), ("parallel_attention", "∥ adapter")),
    (("layer_norm", "Add & LayerNorm"),),
    (("ffn_in", "FFN in W₁"),),
    (("ffn_out", "FFN out W₂"), ("parallel_ffn", "∥ adapter")),
    (("layer_norm", "Add & LayerNorm"),),
    (("layers", "Layer outputs (scalar mix)"),),
    (("head", "Task head"),),
)
BLOCK_ROWS = range(1, 7)  # the rows inside the repeated block
PARALLEL_SHARE = 0.38  # of a row's width: a parallel adapter's box beside its sublayer (He et al. 2022)
BIAS_SITES = {"query", "key", "value", "attention_output", "ffn_in", "ffn_out", "layer_norm", "head"}  # with a bias


class AttachmentDiagram(QWidget):
    """Shows one ``Attachment`` (or an empty block when none is set)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachment: Any = None
        self.method_title = ""
        self.lit_sites: tuple[str, ...] | None = None
        self.notes: tuple[str, ...] = ()
        self._boxes: list[tuple[str, str, QRectF]] = []
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        theme.bind(self, lambda w, m: w.setMinimumWidth(m.diagram_min_w))

    def set_attachment(self, attachment: Any, title: str = "", *, sites: tuple[str, ...] | None = None,
                       notes: list[str] | tuple[str, ...] = ()) -> None:
        """Show ``attachment``; ``sites`` (default: its own) are the boxes lit, ``notes`` lines under the caption
        (what the task or the model changes: no head, fused Q/K/V, sizes on this model)."""
        self.attachment, self.method_title = attachment, title
        self.lit_sites = tuple(sites) if sites is not None else None
        self.notes = tuple(notes)
        self.updateGeometry()  # the caption's height depends on the text
        self.update()

    def _caption_rect(self, top: float) -> QRectF:
        """Where the wrapped caption goes below ``top`` (its height follows the text and the width)."""
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
        bound = QFontMetricsF(self.font()).boundingRect(QRectF(0, 0, max(1, self.width()), 1e6), flags,
                                                        self.caption())
        return QRectF(0, top, self.width(), bound.height() + QFontMetricsF(self.font()).height() * 0.5)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        boxes_bottom = self._boxes_bottom()
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
        fm = QFontMetricsF(self.font())
        text = fm.boundingRect(QRectF(0, 0, max(1, width), 1e6), flags, self.caption()).height()
        return int(boxes_bottom + text + fm.height())

    def sizeHint(self) -> QSize:  # noqa: N802
        width = max(self.width(), self.minimumWidth())
        return QSize(width, self.heightForWidth(width))

    def _boxes_bottom(self) -> float:
        fm = QFontMetricsF(self._fonts()[0])
        box_h = fm.height() * 1.7
        top = fm.height() * (1.6 if self.method_title else 0.5)
        return top + len(ROWS) * box_h * 1.45

    def highlighted_sites(self) -> set[str]:
        if self.lit_sites is not None:
            return set(self.lit_sites)
        return set(getattr(self.attachment, "sites", ()) or ())

    def boxes(self) -> list[tuple[str, str, QRectF]]:
        """(site, label, rectangle) of every box as last laid out (for tests and tooltips)."""
        self._layout()
        return list(self._boxes)

    def caption(self) -> str:
        """The text under the diagram: the formula and the residual path."""
        a = self.attachment
        if a is None:
            return "Choose a method to see where it attaches."
        return "\n".join([a.formula, f"Residual: {a.residual}", *self.notes])

    # ---------------------------------------------------------------- layout
    def _fonts(self) -> tuple[QFont, QFont]:
        f = theme.current().fonts
        return theme.sized_font(self.font(), f.small_delta), self.font()

    def _layout(self) -> tuple[float, float]:
        """Lay the boxes out in the top part of the widget; return (left edge of the block, text top)."""
        small, _ = self._fonts()
        fm = QFontMetricsF(small)
        box_h = fm.height() * 1.7
        gap = box_h * 0.45
        rail = fm.horizontalAdvance("M") * 3.0  # room on the left for the residual paths
        left, right = rail, self.width() - fm.horizontalAdvance("M") * 4.0  # and for "× L" on the right
        top = fm.height() * (1.6 if self.method_title else 0.5)
        self._boxes = []
        y = top
        for row in ROWS:
            if len(row) == 2 and row[1][0].startswith("parallel_"):  # the sublayer, then its parallel adapter
                split = left + (right - left) * (1 - PARALLEL_SHARE)
                spans = ((left, split - gap / 2), (split + gap / 2, right))
            else:
                width = (right - left) / len(row)
                starts = [left + i * width + (gap / 2 if i else 0) for i in range(len(row))]
                spans = tuple((x0, x0 + width - (gap / 2 if len(row) > 1 else 0)) for x0 in starts)
            for (site, label), (x0, x1) in zip(row, spans):
                self._boxes.append((site, label, QRectF(x0, y, x1 - x0, box_h)))
            y += box_h + gap
        return left, y

    # ---------------------------------------------------------------- paint
    def paintEvent(self, event) -> None:  # noqa: N802
        t = theme.current()
        c, m = t.colours, t.metrics
        small, normal = self._fonts()
        left, text_top = self._layout()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(c.base_bg))
        if self.method_title:
            painter.setFont(normal)
            painter.setPen(QColor(c.label_ink))
            painter.drawText(QRectF(0, 0, self.width(), QFontMetricsF(normal).height() * 1.3),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.method_title)
        sites = self.highlighted_sites()
        adds = bool(getattr(self.attachment, "adds_modules", True))
        rows = self._rows()
        flow = QPen(QColor(c.diagram_flow), m.diagram_line_width)
        painter.setPen(flow)
        for upper, lower in zip(rows, rows[1:]):  # arrows between consecutive rows, down the middle
            x = (upper[0].left() + upper[-1].right()) / 2
            self._arrow(painter, QPointF(x, upper[0].bottom()), QPointF(x, lower[0].top()))
        self._residuals(painter, rows, left)
        self._block_bracket(painter, rows, small)
        painter.setFont(small)
        fm = QFontMetricsF(small)
        for site, label, rect in self._boxes:
            on = site in sites or ("bias" in sites and site in BIAS_SITES) or (
                site == "layer_norm" and "layer_norm" in sites)
            chip = (c.diagram_site if adds else c.diagram_unfrozen) if on else c.diagram_box
            if "bias" in sites and site in BIAS_SITES and site not in sites:
                chip = c.diagram_unfrozen
            painter.setPen(QPen(QColor(chip.border), m.diagram_line_width * (1.6 if on else 1.0)))
            painter.setBrush(QColor(chip.fill))
            painter.drawRoundedRect(rect, m.radius, m.radius)
            painter.setPen(QColor(chip.ink))
            text = label + (" + b" if "bias" in sites and site in BIAS_SITES else "")
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, fm.elidedText(text, Qt.TextElideMode.ElideRight,
                                                                               rect.width() - 4))
        painter.setFont(normal)
        painter.setPen(QColor(c.ink))
        painter.drawText(self._caption_rect(text_top),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                         self.caption())
        painter.end()

    def _rows(self) -> list[list[QRectF]]:
        rows: list[list[QRectF]] = []
        last_y = None
        for _, _, rect in self._boxes:
            if rect.top() != last_y:
                rows.append([])
                last_y = rect.top()
            rows[-1].append(rect)
        return rows

    @staticmethod
    def _arrow(painter: QPainter, a: QPointF, b: QPointF) -> None:
        painter.drawLine(a, b)
        size = max(2.0, (b.y() - a.y()) * 0.35)
        painter.drawLine(b, QPointF(b.x() - size * 0.6, b.y() - size))
        painter.drawLine(b, QPointF(b.x() + size * 0.6, b.y() - size))

    def _residuals(self, painter: QPainter, rows: list[list[QRectF]], left: float) -> None:
        """Block input -> first add & LayerNorm; first LayerNorm -> second add & LayerNorm (on the left)."""
        c, m = theme.current().colours, theme.current().metrics
        painter.setPen(QPen(QColor(c.diagram_residual), m.diagram_line_width, Qt.PenStyle.DashLine))
        spans = ((0, 3, 0.65), (3, 6, 0.35))  # (from row, to row, x as a share of the rail)
        for start, end, share in spans:
            x = left * share
            y0 = (rows[start][0].bottom() + rows[start + 1][0].top()) / 2
            y1 = rows[end][0].center().y()
            painter.drawLine(QPointF(rows[start][0].center().x(), y0), QPointF(x, y0))
            painter.drawLine(QPointF(x, y0), QPointF(x, y1))
            self._side_arrow(painter, QPointF(x, y1), QPointF(rows[end][0].left(), y1))

    @staticmethod
    def _side_arrow(painter: QPainter, a: QPointF, b: QPointF) -> None:
        painter.drawLine(a, b)
        size = max(2.0, min(8.0, (b.x() - a.x()) * 0.4))
        painter.drawLine(b, QPointF(b.x() - size, b.y() - size * 0.6))
        painter.drawLine(b, QPointF(b.x() - size, b.y() + size * 0.6))

    def _block_bracket(self, painter: QPainter, rows: list[list[QRectF]], font: QFont) -> None:
        c, m = theme.current().colours, theme.current().metrics
        first, last = rows[BLOCK_ROWS.start], rows[BLOCK_ROWS.stop - 1]
        x = first[-1].right() + QFontMetricsF(font).horizontalAdvance("M")
        painter.setPen(QPen(QColor(c.diagram_flow), m.diagram_line_width))
        painter.drawLine(QPointF(x, first[0].top()), QPointF(x, last[0].bottom()))
        painter.setFont(font)
        painter.setPen(QColor(c.muted_ink))
        painter.drawText(QRectF(x + 2, (first[0].top() + last[0].bottom()) / 2 - 10, self.width() - x, 20),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "× L")

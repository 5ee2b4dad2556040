"""Draw the application icon (256 x 256 PNG): tokens in two layers joined by attention lines.

Geometry only (no fonts), with Qt's offscreen platform, so it works on a build host with
no display: ``python packaging/make_icon.py OUT.png``.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QColor, QGuiApplication, QImage, QLinearGradient, QPainter, QPen  # noqa: E402

SIZE = 256
TOKENS = 5


def draw(path: str) -> None:
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    background = QLinearGradient(0, 0, 0, SIZE)
    background.setColorAt(0, QColor("#2b4c7e"))
    background.setColorAt(1, QColor("#1a2b45"))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(background)
    p.drawRoundedRect(QRectF(8, 8, SIZE - 16, SIZE - 16), 44, 44)

    xs = [48 + i * (SIZE - 96) / (TOKENS - 1) for i in range(TOKENS)]
    top, bottom = 76.0, 180.0
    weights = [[0.9, 0.3, 0.1, 0.1, 0.2], [0.4, 0.8, 0.5, 0.1, 0.1], [0.1, 0.6, 0.9, 0.3, 0.1],
               [0.1, 0.1, 0.4, 0.9, 0.5], [0.3, 0.1, 0.1, 0.5, 0.9]]
    for i, x_top in enumerate(xs):  # attention from each upper token to the tokens below
        for j, x_bottom in enumerate(xs):
            colour = QColor("#f2b134")
            colour.setAlphaF(weights[i][j])
            p.setPen(QPen(colour, 2 + 7 * weights[i][j], Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            p.drawLine(QPointF(x_top, top), QPointF(x_bottom, bottom))
    p.setPen(Qt.PenStyle.NoPen)
    for y, colour in ((top, "#9fd3ff"), (bottom, "#ffffff")):
        p.setBrush(QColor(colour))
        for x in xs:
            p.drawEllipse(QPointF(x, y), 15, 15)
    p.end()
    if not image.save(path, "PNG"):
        raise SystemExit(f"make_icon: cannot write {path}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_icon.py OUT.png")
    app = QGuiApplication([])
    draw(sys.argv[1])

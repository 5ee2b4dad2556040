"""Colours the analysis views share: a sequential colormap, a diverging one and a head palette.

All come from the current theme tokens. The diverging colormap (``diverging_stops``, ColorBrewer RdBu
reversed) is for signed scores: blue below zero, the light middle at zero, red above; ``signed_color`` and
``to_rgba_signed`` map a value through it with a scale symmetric about zero. The default colormap
(``heatmap_stops``) runs from white to dark blue (ColorBrewer "Blues"), so
zero attention is the background and strong weights stand out; ``to_rgba``
maps a [0, 1] array through it into an image. ``head_colors`` is a
qualitative palette (Tableau 10 plus two), one colour per head, cycled.
"""

from __future__ import annotations

import functools

import numpy as np
from PySide6.QtGui import QColor, QImage

from lm_workbench.ui import theme


def head_color(head: int) -> QColor:
    colors = theme.current().colours.head_colors
    return QColor(colors[head % len(colors)])


@functools.lru_cache(maxsize=4)
def _lut(stops: tuple[str, ...], n: int = 256) -> np.ndarray:
    rgb = np.array([[QColor(s).red(), QColor(s).green(), QColor(s).blue()] for s in stops], dtype=float)
    xs = np.linspace(0.0, 1.0, len(stops))
    t = np.linspace(0.0, 1.0, n)
    return np.stack([np.interp(t, xs, rgb[:, c]) for c in range(3)], axis=1).round().astype(np.uint8)


def sequential() -> np.ndarray:
    """[256, 3] uint8: the current colormap's lookup table."""
    return _lut(theme.current().colours.heatmap_stops)


def gradient_css() -> str:
    """The colormap as a left-to-right Qt style-sheet gradient (for legends)."""
    colors = theme.current().colours.heatmap_stops
    stops = ", ".join(f"stop:{i / (len(colors) - 1):.3f} {c}" for i, c in enumerate(colors))
    return f"qlineargradient(x1:0, y1:0, x2:1, y2:0, {stops})"


def color_at(value: float) -> QColor:
    """The colormap's colour for a value in [0, 1]."""
    i = int(round(min(max(float(value), 0.0), 1.0) * 255))
    r, g, b = sequential()[i]
    return QColor(int(r), int(g), int(b))


def ink_for(value: float) -> QColor:
    """Readable text on ``color_at(value)``: ink or ink_on_dark, whichever contrasts more with it."""
    return theme.readable_ink(color_at(value))


def to_rgba(values: np.ndarray) -> np.ndarray:
    """[h, w] values in [0, 1] -> [h, w, 4] uint8 RGBA through the colormap."""
    idx = np.clip(np.nan_to_num(values) * 255.0 + 0.5, 0, 255).astype(np.uint8)
    rgba = np.empty(values.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = sequential()[idx]
    rgba[..., 3] = 255
    return rgba


def rgba_image(rgba: np.ndarray) -> QImage:
    """A QImage that owns a copy of an [h, w, 4] uint8 RGBA array."""
    rgba = np.ascontiguousarray(rgba)
    h, w = rgba.shape[:2]
    image = QImage(rgba.data, w, h, 4 * w, QImage.Format.Format_RGBA8888)
    return image.copy()  # detach from the numpy buffer


def diverging() -> np.ndarray:
    """[256, 3] uint8: the diverging colormap's lookup table (index 0: most negative, 255: most positive)."""
    return _lut(theme.current().colours.diverging_stops)


def signed_unit(values: np.ndarray, vmax: float) -> np.ndarray:
    """Signed values -> [0, 1] on a scale symmetric about zero: -vmax -> 0, 0 -> 0.5, +vmax -> 1."""
    scale = vmax if vmax > 0 else 1.0
    return np.clip(0.5 + 0.5 * np.nan_to_num(np.asarray(values, dtype=np.float64)) / scale, 0.0, 1.0)


def signed_color(value: float, vmax: float) -> QColor:
    """The diverging colormap's colour for ``value`` on the symmetric scale [-vmax, vmax]."""
    i = int(round(float(signed_unit(np.array([value]), vmax)[0]) * 255))
    r, g, b = diverging()[i]
    return QColor(int(r), int(g), int(b))


def to_rgba_signed(values: np.ndarray, vmax: float) -> np.ndarray:
    """[h, w] signed values -> [h, w, 4] uint8 RGBA through the diverging colormap, symmetric in ±vmax."""
    idx = (signed_unit(values, vmax) * 255.0 + 0.5).astype(np.uint8)
    rgba = np.empty(np.shape(values) + (4,), dtype=np.uint8)
    rgba[..., :3] = diverging()[idx]
    rgba[..., 3] = 255
    return rgba

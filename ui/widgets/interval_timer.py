"""A ``QTimer`` owned by a widget, its interval and slot set in one call (a debounce, a reveal delay, a refresh)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer


def interval_timer(owner: QObject, interval_ms: int, on_timeout: Callable[..., Any], *,
                   single_shot: bool = False) -> QTimer:
    """A stopped ``QTimer`` child of ``owner`` that calls ``on_timeout`` (a slot or a signal) every
    ``interval_ms`` once started, or once per start when ``single_shot``."""
    timer = QTimer(owner)
    timer.setSingleShot(single_shot)
    timer.setInterval(interval_ms)
    timer.timeout.connect(on_timeout)
    return timer

"""Work around PySide6/shiboken6 wheels that return None without a reference.

The installed PySide6 6.12.0 wheels (tagged cp310-abi3) return ``None`` from
every void method (``QPainter.drawLine``, ``QLabel.setText``, ...) without
adding a reference to it, as code built for the 3.12 limited API may, where
``None`` is immortal. On Python 3.10 and 3.11 each such call therefore takes
one reference away from ``None``; a view that paints thousands of shapes per
frame brings the count to zero within minutes and the interpreter aborts
("Fatal Python error: none_dealloc: deallocating None").

``apply()`` measures the loss with a few harmless calls and, only when there
is one, gives ``None`` a very large number of extra references (2**40: the
count cannot reach zero in the life of a process), which is what Python 3.12+
does by making ``None`` immortal. It does nothing on an unaffected build.
"""

from __future__ import annotations

import ctypes
import sys

EXTRA_REFERENCES = 1 << 40
_applied = False


def references_lost_per_call(calls: int = 32) -> float:
    """How many references to None one void PySide6 call takes away (0 on a correct build)."""
    from PySide6.QtCore import QRectF

    rect = QRectF()
    before = sys.getrefcount(None)
    for _ in range(calls):
        rect.setWidth(1.0)
    return (before - sys.getrefcount(None)) / calls


def apply() -> bool:
    """Protect None if this PySide6 build needs it; True when the fix was applied."""
    global _applied
    if _applied or sys.version_info >= (3, 12) or hasattr(sys, "gettotalrefcount"):
        return _applied  # immortal None (3.12+), or a debug build with another object layout
    if references_lost_per_call() < 0.5:
        return False
    import logging

    logging.getLogger(__name__).warning(
        "this PySide6 build loses a reference to None per call (6.12.0 on Python < 3.12); "
        "protecting None. Install PySide6-Essentials 6.11.3 (constraints/cpu.txt) to avoid it."
    )
    ctypes.c_ssize_t.from_address(id(None)).value += EXTRA_REFERENCES  # ob_refcnt is the first field
    _applied = True
    return True

"""The line a view shows when the model read only a window of a long text (``lm_workbench.engine.text_window``).

Kept light (no torch): the views import it on the Qt thread.
"""

from __future__ import annotations

from typing import Iterable


def read_line(notes: Iterable[str] | None) -> str | None:
    """"The text is longer than the model's window: it read tokens a–b of n …", or None when nothing was cut."""
    notes = [n for n in (notes or ()) if n]
    if not notes:
        return None
    return f"The text is longer than the model's window: it read {'; '.join(notes)} (special tokens not counted)."

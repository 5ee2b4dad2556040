"""The prediction target's limits that the window and the CLI read without importing torch."""

from __future__ import annotations

MAX_OUTPUT_POSITION = 256  # an encoder-decoder's output token explained, patched or split: at most this one

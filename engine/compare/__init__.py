"""Two models side by side: how alike their layers are on the same words (``engine.compare.cka``)."""

"""Two models side by side: how alike their layers are on the same words (``lm_workbench.engine.compare.cka``)."""

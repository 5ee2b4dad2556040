"""Heads (which heads move the answer): the corpus file mean and resample ablation read, the view's jobs and its
Qt-free state (``lm_workbench.engine.heads`` computes)."""

"""Predictions: the jobs behind the Predictions tab (fill-mask, the next token, generation, infilling)."""

"""Probing and STS runs: what to compute (params), how to record it in the run store, and the lane jobs."""

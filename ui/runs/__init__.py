"""The "Runs" tab and what it shares with the Pre-train tab: the run store, the lane, metric series."""

"""Following long runs: the run services (lanes, processes) and readers of a run's metrics, shared by the
Pre-train and Runs tabs."""

"""Job lanes: where work runs (an interactive thread lane, a long-run process lane)."""

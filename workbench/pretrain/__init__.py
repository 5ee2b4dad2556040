"""Pre-training runs: the spec, the in-process runner, the long-run job and the course models."""

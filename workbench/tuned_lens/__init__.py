"""The tuned lens as a recorded run: its spec, where translators live, the run itself and its jobs."""

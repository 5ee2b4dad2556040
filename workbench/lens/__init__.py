"""The lens area (the Logit lens tab): the jobs of both lenses, and the tuned lens as a recorded run (its spec,
where translators live, the run itself and its jobs)."""

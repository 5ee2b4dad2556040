"""Studies: a declared grid of ordinary runs, a table and a figure that fill as the cells finish, with the
published values beside the local ones (issue 45). See docs/studies.md.

- ``file``: reading and checking a ``lm-workbench-study/1`` file (``load_study``), variables and scales;
- ``sweep``: grid and random sweeps expanded into cells;
- ``runner``: the queue (progress, Cancel, resume, reuse of identical cells, a failed cell marked);
- ``table``: the table (mean and spread over seeds) with the published values beside;
- ``figure`` / ``export``: PNG/SVG and CSV, and a whole study as one folder;
- ``runs``: the ``study`` run kind (it links its cells).
"""

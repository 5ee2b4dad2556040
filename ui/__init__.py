"""The Qt desktop front end of LM Workbench (PySide6).

Only this package imports Qt. It builds on ``workbench`` (jobs, settings,
exports) and ``engine`` (models, tokens); nothing imports ``ui``: the command
line finds it through the ``lm_workbench.frontends`` entry point.
"""

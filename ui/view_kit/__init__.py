"""The view toolkit: what every view imports (``ModelView``, ``ViewContext``, ``ViewEntry``, the view
abilities, the job bridge and ``ViewJobs``, model labels) and the small interfaces the window hands its
parts. It imports no view and not the window (``lm_workbench.ui.window``); checked in pyproject.toml."""

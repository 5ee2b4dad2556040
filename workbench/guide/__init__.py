"""The Guide: pages that walk a student through the five lectures on the live views, with exercises whose right
answers are computed from the loaded model (no Qt here).

``page`` is the page-file format ("lm-workbench-guide/1", line-numbered refusals); a page's view settings are a
lecture-preset step (``lm_workbench.lectures.schema``), so a page drives its view as a preset step does.
``questions`` holds the engine questions an exercise names (a view's lecture metrics, and the cell and token
questions); ``check`` computes the expected answer on a model and reads a student's answer; ``library`` finds
guides (built-in package data, the user's folder, the ``lm_workbench.guides`` entry points); ``progress`` keeps
each OS user's progress in the data folder. ``lm-workbench guide`` is the CLI; the window's Guide tab is
``lm_workbench.ui.guide``.
"""

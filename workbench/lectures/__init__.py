"""Lecture presets: data files that step a class through a lecture's examples (no Qt here).

A preset names a model and a list of steps; each step opens one view with its
inputs (text, pair, corpus) and settings, under a one-line caption. The
schema is documented in ``docs/lecture-presets.md`` and checked by
``lm_workbench.lectures.schema``; ``library`` finds the built-in presets (package
data in ``data/``) and reads a teacher's file; ``availability`` says which
presets and steps this installation can show and why not; ``runner`` holds
which preset and step are current. A step's ``claims`` (``claims``) state what
its view shows as predicates over the view's metrics (``metrics``: one module
per view, computing the step as the view does, without Qt); ``verify``
evaluates them on the models the presets name (``lm-workbench presets verify``).
"""

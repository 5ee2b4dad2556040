"""Lecture presets: data files that step a class through a lecture's examples (no Qt here).

A preset names a model and a list of steps; each step opens one view with its
inputs (text, pair, corpus) and settings, under a one-line caption. The
schema is documented in ``docs/lecture-presets.md`` and checked by
``lm_workbench.lectures.schema``; ``library`` finds the built-in presets (package
data in ``data/``) and reads a teacher's file; ``availability`` says which
presets and steps this installation can show and why not; ``runner`` holds
which preset and step are current.
"""

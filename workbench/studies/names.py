"""The study file's constants (light: no torch, no numpy)."""

from __future__ import annotations

FORMAT = "lm-workbench-study/1"
SCALES = ("tiny", "lecture")
DEFAULT_SCALE = "lecture"
SWEEP_LIMIT = 64  # cells a study may expand to without --yes
REDUCES = ("last", "max", "min", "first", "mean")
FIGURES = ("bars", "lines", "pareto", "none")
TOP_KEYS = ("format", "name", "title", "description", "caption", "scale_note", "vars", "scales", "seeds", "cells",
            "sweep", "columns", "rows", "figure", "published", "notes", "trends")
CELL_KEYS = ("id", "row", "kind", "settings", "seeds", "needs", "note")
COLUMN_KEYS = ("name", "metric", "reduce", "step", "cell", "kind", "scale", "unit")
SWEEP_KEYS = ("kind", "settings", "grid", "random", "row", "id")
PUBLISHED_KEYS = ("source", "units", "columns", "values", "note")
FIGURE_KEYS = ("type", "x", "y", "title")
# What the run records about its time and size when the run kind does not log it (read from the run's row).
RUN_FIELDS = ("wall_s",)
TREND_KEYS = ("claim", "column", "rows", "expect", "margin")
TREND_EXPECT = ("increasing", "decreasing")

"""The one cache of fine-tuned runs' classifiers that Explain reloads (the last run asked for).

Only jobs touch it, and the interactive lane runs them one at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class RunModels:
    """The last fine-tuned run's model opened for attribution, keyed by its output folder."""

    def __init__(self) -> None:
        self._out_dir: str | None = None
        self._model: Any = None

    def get(self, out_dir: str) -> Any:
        """The ``ClassifierModel`` of the run in ``out_dir``, opened once (on the worker thread)."""
        if self._out_dir != out_dir or self._model is None:
            from lm_workbench.engine.attribution.classifier import ClassifierModel
            from lm_workbench.finetune.train import open_output

            self._model = None
            self._model = ClassifierModel(open_output(out_dir), f"the run in …/{Path(out_dir).name}")
            self._out_dir = out_dir
        return self._model

    def clear(self) -> None:
        self._out_dir, self._model = None, None


RUN_MODELS = RunModels()

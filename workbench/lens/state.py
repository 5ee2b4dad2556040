"""The Lens view's Qt-free state for the tuned lens: which lens is shown, whether the loaded model has
translators, both lenses' last reading of the text, and the settings of the next training.

``model_loaded(folder)`` looks for the model's translators (``files.find_translators``); ``mode`` is
"logit" or "tuned" (tuned only while translators exist); ``shown_table()`` is the table the grid shows and
``kl_curves()`` the per-layer KL to the output the chart draws, for each lens that has one.
``training_spec(model)`` is the recorded run the "Train tuned lens…" button starts; ``trained(summary)``
takes its result (the translators' folder) and switches to the tuned lens. Kept light: no torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.lens.files import find_translators
from lm_workbench.lens.spec import TunedLensSpec

MODES = ("logit", "tuned")
DEFAULT_STEPS = 250


class TunedLensState:
    def __init__(self) -> None:
        self.model_folder: str | None = None
        self.folder: Path | None = None  # the loaded model's translators, if any
        self.mode = "logit"
        self.both: Any = None  # lm_workbench.engine.lens.tuned.lens.BothLenses of the text shown
        self.corpus: str | None = None  # None: the English text of Python's documentation
        self.steps = DEFAULT_STEPS
        self.training = False
        self.last_summary: dict[str, Any] | None = None

    # -- the model and its translators ------------------------------------------------------------------------
    def model_loaded(self, model_folder: str | None) -> None:
        if model_folder != self.model_folder:
            self.both = None
        self.model_folder = model_folder
        self.folder = find_translators(model_folder)
        if self.folder is None:
            self.mode = "logit"

    @property
    def has_tuned(self) -> bool:
        return self.folder is not None

    def folder_key(self) -> tuple[str, float] | None:
        """What a reading depends on: the translators' folder and when they were written (None: none)."""
        if self.folder is None:
            return None
        try:
            written = (self.folder / "translators.safetensors").stat().st_mtime
        except OSError:
            written = 0.0
        return str(self.folder), written

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.mode = mode if mode == "logit" or self.has_tuned else "logit"

    # -- what the view shows ----------------------------------------------------------------------------------
    def show(self, both: Any) -> None:
        self.both = both

    def clear(self) -> None:
        self.both = None

    def shown_table(self) -> Any:
        if self.both is None:
            return None
        if self.mode == "tuned" and self.both.tuned is not None:
            return self.both.tuned
        return self.both.logit

    def kl_curves(self) -> dict[str, list[float]]:
        """{"logit": [KL per layer], "tuned": [...]} (tuned only when read through translators)."""
        if self.both is None:
            return {}
        curves = {"logit": list(self.both.kl_logit)}
        if self.both.kl_tuned is not None:
            curves["tuned"] = list(self.both.kl_tuned)
        return curves

    # -- training ---------------------------------------------------------------------------------------------
    def corpus_path(self) -> str:
        """The corpus file of the next training (the Python docs, written to the data folder, by default)."""
        if self.corpus:
            return self.corpus
        from lm_workbench.engine.pretrain.python_docs import python_docs_corpus
        from lm_workbench.paths import data_dir

        return str(python_docs_corpus(data_dir() / "corpus"))

    def training_spec(self, model: str) -> TunedLensSpec:
        return TunedLensSpec(model=model, corpus=[self.corpus_path()], settings={"steps": int(self.steps)}).checked()

    def trained(self, summary: dict[str, Any]) -> None:
        self.training = False
        self.last_summary = summary
        self.folder = Path(summary["out_dir"])
        self.mode = "tuned"

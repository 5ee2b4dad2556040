"""Which model and which tokens the window shows: the load and tokenize requests, in a Qt-free object.

The window asks for a model load or a tokenization on the interactive lane; a newer request replaces an
older one, and whatever the older one still reports must be dropped. ``ModelSession`` keeps that
bookkeeping: each request gets a generation number, and only the current generation's result is taken.
A load in flight also holds back tokenizing (the load's end tokenizes), and the same spec asked for twice
while it loads is one load.
"""

from __future__ import annotations

import time
from typing import Any


class ModelSession:
    def __init__(self) -> None:
        self.loaded: Any = None  # lm_workbench.engine.models.loading.LoadedModel
        self.tokenized: Any = None  # lm_workbench.engine.tokens.TokenizedText of the text box with the loaded model (the window
        # sets it when the current tokenization ends)
        self.loading_spec: str | None = None  # the spec being loaded, if any
        self._load_gen = 0
        self._tok_gen = 0
        self._load_started = 0.0

    @property
    def loading(self) -> bool:
        return self.loading_spec is not None

    # ---------------------------------------------------------------- load
    def begin_load(self, spec: str) -> int | None:
        """A new load of ``spec``: its generation, or None when there is nothing new to load (an empty spec,
        or the spec already loading)."""
        spec = spec.strip()
        if not spec or spec == self.loading_spec:
            return None
        self._load_gen += 1
        self.loading_spec = spec
        self._load_started = time.monotonic()
        return self._load_gen

    @property
    def load_generation(self) -> int:
        """The newest load's generation: it changes with every new load asked for."""
        return self._load_gen

    def finish_load(self, gen: int, loaded: Any) -> bool:
        """The load ``gen`` produced ``loaded``; False (and nothing kept) when a newer load replaced it."""
        if gen != self._load_gen:
            return False
        self.loading_spec = None
        self.loaded = loaded
        return True

    def end_load(self, gen: int) -> bool:
        """The load ``gen`` failed or was cancelled; False when a newer load replaced it."""
        if gen != self._load_gen:
            return False
        self.loading_spec = None
        return True

    def load_seconds(self) -> float:
        """Seconds since the current load began."""
        return time.monotonic() - self._load_started

    # ------------------------------------------------------------ tokenize
    def begin_tokenize(self) -> int:
        """A new tokenization of the text box: its generation (any older one's result will be dropped)."""
        self._tok_gen += 1
        return self._tok_gen

    def is_current_tokenize(self, gen: int) -> bool:
        return gen == self._tok_gen

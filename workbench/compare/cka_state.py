"""What the Compare tab shows, without Qt: the layer × layer CKA of model A and model B, or why there is none.

``CkaState.request(model_key, b, text)`` is the computation's key and texts (each non-empty line one text;
``None`` without a model B, with ``hint`` saying how to load one). ``set_result`` keeps the engine's
``LayerCka``; ``summary()``, ``row_labels()``, ``column_labels()`` and ``title()`` are what the heatmap and
the line above it show. Events: ``changed`` (a result or a hint arrived).
"""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.observable import EventGroup

NO_B_HINT = ("Compare with… (in the model panel, or a finished run's Compare with this in the Runs tab) loads a "
             "second model: this tab then shows how alike its layers are to this model's.")


class CkaState:
    def __init__(self, label: Callable[[str], str] = str) -> None:
        self._label = label  # a model spec -> the name shown (the window's short label)
        self.result: Any = None  # the engine's LayerCka (model_a, model_b, words, layers_a, layers_b, cka)
        self.hint = ""
        self.events = EventGroup("changed")

    def request(self, model_key: Any, b: Any, text: str) -> tuple[tuple, list[str]] | None:
        """(the computation's key, the texts) for model B ``b`` (a LoadedModel), or None without one."""
        if b is None:
            self.show_hint(NO_B_HINT)
            return None
        texts = [line for line in text.splitlines() if line.strip()]
        return (model_key, id(b), b.info.spec, tuple(texts)), texts

    def set_result(self, result: Any) -> None:
        self.result, self.hint = result, ""
        self.events.changed.emit()

    def show_hint(self, text: str) -> None:
        self.result, self.hint = None, text
        self.events.changed.emit()

    # ------------------------------------------------------------- derived
    def names(self) -> tuple[str, str]:
        return self._label(self.result.model_a), self._label(self.result.model_b)

    def summary(self) -> str:
        if self.result is None:
            return ""
        a, b = self.names()
        return (f"Linear CKA over {len(self.result.words)} words: rows are A ({a}) layers, columns B ({b}) "
                "layers; 0 is the embeddings.")

    def row_labels(self) -> list[str]:
        return [f"A {i}" for i in self.result.layers_a] if self.result is not None else []

    def column_labels(self) -> list[str]:
        return [f"B {j}" for j in self.result.layers_b] if self.result is not None else []

    def title(self) -> str:
        if self.result is None:
            return ""
        a, b = self.names()
        return f"CKA: {a} × {b}"

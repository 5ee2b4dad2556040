"""Whose map the Embeddings tab shows (issue 49.5): the map names the model, corpus and representation it came
from; a changed input greys it with Run again, another model clears it (``lm_workbench.result_origin``).

A mixin of ``EmbeddingExplorerView``: it reads the view's ``state``, ``ctx``, ``picker``, ``method`` and panels, and
its ``map_origin`` (a ``ResultOriginLine`` over the map).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class MapOrigin:
    def _connect_origin(self) -> None:
        self.ctx.model_changed.connect(lambda _loaded: self._model_changed())
        for signal in (self.picker.changed, self.picker.extraction_changed, self.method.changed,
                       self.method.compute_requested):
            signal.connect(self.check_origin)
        self.state.events.results_cleared.connect(self._results_cleared)

    def _model_changed(self) -> None:
        self.check_origin()  # another model: the old map is cleared
        self._check_model()  # and the corpus embedded by the new one

    def map_inputs(self) -> tuple:
        """What the map depends on besides the model: corpus, words, pooling, representation, method."""
        corpus = self.state.corpus
        return (id(corpus) if corpus is not None else None, tuple(self.picker.words() or ()), self.picker.pooling(),
                self.picker.spec_text(), self.method.method(), repr(sorted(self.method.parameters().items())),
                self.method.seed())

    def _map_summary(self) -> str:
        corpus, method = self.state.corpus, self.method.method()
        source = getattr(corpus, "source", "no corpus")
        spec = self.picker.spec_text()
        spec = f"layer {spec}" if spec.isdigit() else spec
        return f"{source}, {spec}, {method.upper() if method else 'map'}"

    def check_origin(self, *_args: Any) -> str:
        """The inputs or the model changed: grey the map (stale) or clear it (another model)."""
        return self.map_origin.check(self.ctx.loaded, self.map_inputs())

    def run_again(self) -> None:
        """Run again: embed again when the corpus, words or pooling changed, else compute the map."""
        loaded, corpus = self.ctx.loaded, self.state.corpus
        key = (id(loaded), id(corpus), tuple(self.picker.words() or ()), self.picker.pooling())
        if self.state.table is None or key != self.state.table_key:
            self.embed()
        else:
            self.update_map(force=True)

    def clear_results(self) -> None:
        """The model the map came from is gone: so are the map and what was read from it."""
        self.state.clear_results()

    def _results_cleared(self) -> None:
        self.map.set_points(np.zeros((0, 2)), [])
        self.neighbours.clear()
        self.selection_list.set_rows([], [], [])
        self.side_tabs.setTabText(1, "Selection")
        self.sweep_panel.clear("Embed a corpus first.")
        self.sentence_panel.clear("Load a model and a corpus first.")
        self.hover_label.setText("Hover a point to read its sentence; click one for its neighbours.")


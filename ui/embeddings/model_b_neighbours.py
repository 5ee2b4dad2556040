"""Model B's side of the Embeddings tab's Neighbours (the model panel's "Compare with…"): A | B.

While a model B is compared, B embeds the tab's corpus as A did (every layer, the same words and pooling,
``lm_workbench.embeddings.view_tasks.model_b_vectors``) and the Neighbours list B's nearest occurrences to the same
occurrence under A's (``EmbeddingsState.neighbours_b``). The tab runs one job at a time, so B's work follows
A's: each time one of the tab's jobs ends well, ``sync`` starts what B still lacks (its vectors for this
table, or its representation for A's current one). A B that cannot embed says why under its title once,
and is not retried until B or the table changes.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from PySide6.QtCore import QTimer

from lm_workbench.ui.embeddings.neighbours_panel import NeighboursPanel
from lm_workbench.ui.embeddings.occurrence_list import context_html, context_plain
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.embeddings import view_tasks
from lm_workbench.embeddings.state import EmbeddingsState


def describe_occurrence(table: Any, row: int) -> tuple[str, str, str, str]:
    """(word, label, sentence HTML with the word highlighted, sentence with the word in brackets)."""
    sentence, start, end = table.context(row)
    label = (table.labels[row] or "") if table.labels is not None else ""
    return table.occurrences[row].word, label, context_html(sentence, start, end), context_plain(sentence, start, end)


class ModelBNeighbours:
    def __init__(self, ctx: Any, state: EmbeddingsState, panel: NeighboursPanel, picker: Any,
                 progress: Callable[[Any], None], refresh: Callable[[], None]):
        """``progress`` shows a job's progress; ``refresh`` lists the current query's neighbours again."""
        self.ctx, self.state, self.panel, self.picker = ctx, state, panel, picker
        self._progress, self._refresh = progress, refresh
        self._done_for: tuple = ()  # weak references to the B and the A table B's vectors were made (or failed) for
        ctx.model_b_changed.connect(self._model_changed)
        ctx.jobs.finished.connect(lambda outcome: QTimer.singleShot(0, self.sync) if outcome == "done" else None)
        state.events.model_b_changed.connect(self._shown)

    def _model_changed(self, b: Any) -> None:
        self._done_for = ()
        self.state.set_model_b(None)
        if b is None:
            self.panel.set_model_b(self._name_a(), None)
        else:
            self.sync()

    def sync(self) -> None:
        """Start B's extraction or representation job when B lacks it, once A's vectors are shown and the
        tab runs nothing else (a job of A's that replaced B's leads here again when it ends)."""
        b, st = self.ctx.model_b, self.state
        if b is None or st.table is None or st.spec is None or st.corpus is None or self.ctx.jobs.busy():
            return
        table, spec_text = st.table, st.spec.text
        if not self._done(b, table):
            self.panel.set_model_b(self._name_a(), spec_label(b.info.spec), "…",
                                    "Embedding the corpus with model B…")
            words, pooling = self.picker.words(), self.picker.pooling()
            self._run(lambda cancel: view_tasks.model_b_vectors(b, st.corpus, words, pooling, table, spec_text, cancel),
                      b, table, "Embedding the corpus with model B…")
        elif st.model_b is not None and st.model_b.for_spec != spec_text:
            model_b = st.model_b
            self._run(lambda cancel: view_tasks.model_b_representation(model_b, spec_text), b, table,
                      "Model B's representation…")

    def _done(self, b: Any, table: Any) -> bool:
        """Whether B's vectors were made (or failed) for this B and this table of A's."""
        return bool(self._done_for) and self._done_for[0]() is b and self._done_for[1]() is table

    def _run(self, fn: Callable, b: Any, table: Any, label: str) -> None:
        def ready(result: Any) -> None:
            self._done_for = (weakref.ref(b), weakref.ref(table))
            if b is self.ctx.model_b and table is self.state.table:
                self.state.set_model_b(result)

        def failed(exc: BaseException, tb: str) -> None:
            from lm_workbench.engine.errors import WorkbenchError

            self._done_for = (weakref.ref(b), weakref.ref(table))  # not retried until B or the table changes
            message = str(exc) if isinstance(exc, WorkbenchError) and not tb else "B's vectors could not be computed"
            self.panel.set_model_b(self._name_a(), spec_label(b.info.spec), "—", f"Model B: {message}")
            if tb and not isinstance(exc, WorkbenchError):
                self.ctx.show_error(exc, tb)

        self.ctx.jobs.run(fn, ready, step="compare", label=label, on_progress=self._progress, on_error=failed,
                          when_idle=True)

    def _shown(self, model_b: Any) -> None:
        b = self.ctx.model_b
        if model_b is None or b is None:
            if b is None:
                self.panel.set_model_b(self._name_a(), None)
            return
        self.panel.set_model_b(self._name_a(), spec_label(b.info.spec), model_b.spec.label, model_b.note)
        self._refresh()

    def refresh(self, row: int, k: int, same_word: bool) -> None:
        """B's neighbours of A's occurrence ``row``, or why B has none."""
        model_b = self.state.model_b
        if model_b is None or not self.panel.comparing():
            return
        neighbours, b_row = self.state.neighbours_b(row, k, same_word)
        why = ""
        if b_row is None:
            word = self.state.table.occurrences[row].word
            why = (f"B's tokenizer does not read “{word}” here as one word over the same characters, so B has no "
                   "neighbours for it")
        self.panel.show_b(neighbours, lambda r: describe_occurrence(model_b.table, r), why)

    def _name_a(self) -> str:
        loaded = self.ctx.loaded
        return spec_label(loaded.info.spec) if loaded is not None else ""

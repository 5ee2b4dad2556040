"""What the Embeddings tab shows, as a plain object: corpus, vectors, map, selection.

The tab's widgets observe an ``EmbeddingsState`` (``state.events.<name>``)
and change it only through its methods, so the flow corpus -> occurrence
table -> representation -> map -> selection can be driven and checked without
Qt. Jobs (extraction, projection) run elsewhere and hand their results to
``set_table`` / ``set_map`` / ``set_representation``.

Events (arguments in brackets):
- ``corpus_changed`` [corpus]: a new corpus; its table is gone.
- ``table_changed`` [table]: every occurrence's vectors (an ``OccurrenceTable``).
- ``representation_changed`` [spec]: the vectors the neighbours use changed.
- ``map_changed`` [same_points]: new coordinates; ``same_points`` when the map
  shows the same occurrences as before (the selection was kept).
- ``selection_changed`` [points]: the selected map points (sorted, unique).
- ``current_changed`` [point or None]: the clicked point.
- ``results_cleared`` []: the table, the map and the selection are gone (another model: issue 49.5).
- ``model_b_changed`` [model_b or None]: model B's vectors for the same corpus (a ``ComparedVectors`` of
  ``lm_workbench.engine.embeddings.counterpart``: B's table, the B row of each A occurrence, B's representation), or none.
"""

from __future__ import annotations

from typing import Any, Hashable

import numpy as np

from lm_workbench.observable import EventGroup

COLOUR_BY = ("label", "word", "sentence")
MAX_UNDO = 50


def _points(values: Any) -> np.ndarray:
    return np.unique(np.asarray(values, dtype=np.int64).reshape(-1))


class EmbeddingsState:
    def __init__(self) -> None:
        self.events = EventGroup("corpus_changed", "table_changed", "representation_changed", "map_changed",
                                 "selection_changed", "current_changed", "model_b_changed", "results_cleared")
        self.corpus: Any = None  # lm_workbench.engine.embeddings.corpus.Corpus
        self.table: Any = None  # lm_workbench.engine.embeddings.table.OccurrenceTable
        self.table_key: Hashable = None
        self.table_model: Any = None  # the LoadedModel whose vectors ``table`` holds
        self.spec: Any = None  # lm_workbench.engine.embeddings.representation.LayerSpec of ``vectors``
        self.vectors: np.ndarray | None = None  # [n, H] of the current representation
        self.map_rows = np.zeros(0, dtype=np.int64)  # occurrence of each map point
        self.coords: np.ndarray | None = None  # [m, 2]
        self.map_key: Hashable = None
        # what the map was computed from (lm_workbench.result_origin.ResultOrigin): model, corpus, words, pooling,
        # representation and method; the view greys the map when they change and clears it with another model
        self.map_origin: Any = None
        self.selection = np.zeros(0, dtype=np.int64)  # map points
        self.current: int | None = None  # map point
        self._undo: list[np.ndarray] = []
        self._indexes: dict[str, Any] = {}
        self.model_b: Any = None  # model B's vectors, lined up with ``table``'s occurrences

    # -------------------------------------------------------------- stages
    def set_corpus(self, corpus: Any) -> None:
        self.corpus = corpus
        self.events.corpus_changed.emit(corpus)

    def set_table(self, key: Hashable, table: Any, model: Any = None) -> None:
        """New occurrence vectors (of ``model``, a ``LoadedModel``): the map and the neighbour indexes are out of
        date."""
        self.table, self.table_key, self.table_model = table, key, model
        self._indexes = {}
        self.map_key = None
        self.set_model_b(None)  # lined up with the old table
        self.events.table_changed.emit(table)

    def set_model_b(self, model_b: Any) -> None:
        """Model B's vectors for this table's corpus (None: not comparing)."""
        if model_b is None and self.model_b is None:
            return
        self.model_b = model_b
        self._indexes.pop("B", None)
        self.events.model_b_changed.emit(model_b)

    def set_representation(self, spec: Any, vectors: np.ndarray) -> None:
        """The neighbours' vectors changed (the map keeps its coordinates until recomputed)."""
        self.spec, self.vectors = spec, vectors
        self._indexes.pop("contextual", None)
        self.events.representation_changed.emit(spec)

    def set_map(self, key: Hashable, spec: Any, vectors: np.ndarray, rows: np.ndarray, coords: np.ndarray,
                origin: Any = None) -> bool:
        """New map coordinates (computed from ``origin``, a ``ResultOrigin``); keeps the selection when the same
        occurrences are shown. Returns that."""
        rows = np.asarray(rows, dtype=np.int64)
        self.map_origin = origin
        same_points = self.coords is not None and np.array_equal(rows, self.map_rows)
        self.spec, self.vectors = spec, vectors
        self._indexes.pop("contextual", None)
        self.map_rows, self.coords, self.map_key = rows, np.asarray(coords), key
        if not same_points:
            self.selection = np.zeros(0, dtype=np.int64)
            self._undo.clear()
            self.current = None
        self.events.map_changed.emit(same_points)
        return same_points

    def clear_results(self) -> None:
        """Forget the table, the map, the selection and model B's vectors (the corpus stays): the model they came
        from is gone."""
        self.table = self.table_key = self.table_model = None
        self.spec, self.vectors, self.coords, self.map_key, self.map_origin = None, None, None, None, None
        self.map_rows = np.zeros(0, dtype=np.int64)
        self.selection = np.zeros(0, dtype=np.int64)
        self.current = None
        self._undo.clear()
        self._indexes = {}
        self.model_b = None
        self.events.results_cleared.emit()

    # ----------------------------------------------------------- selection
    def select(self, points: Any, *, undoable: bool = True) -> None:
        """Select these map points; the previous selection can be restored with ``undo_selection``."""
        points = _points(points)
        if undoable:
            self._undo.append(self.selection)
            del self._undo[:-MAX_UNDO]
        self.selection = points
        self.events.selection_changed.emit(points.copy())

    def undo_selection(self) -> bool:
        """Back to the previous selection; False when there is none."""
        if not self._undo:
            return False
        self.select(self._undo.pop(), undoable=False)
        return True

    def can_undo(self) -> bool:
        return bool(self._undo)

    def set_current(self, point: int | None) -> None:
        """Make ``point`` the clicked one (None clears)."""
        self.current = None if point is None else int(point)
        self.events.current_changed.emit(self.current)

    def current_occurrence(self) -> int | None:
        return None if self.current is None else self.occurrence_of_point(self.current)

    def point_of_occurrence(self, row: int) -> int | None:
        where = np.flatnonzero(self.map_rows == row)
        return int(where[0]) if len(where) else None

    def occurrence_of_point(self, point: int) -> int:
        return int(self.map_rows[point])

    def selected_occurrences(self) -> list[int]:
        return [self.occurrence_of_point(p) for p in self.selection]

    # ------------------------------------------------------------- queries
    def colour_labels(self, how: str) -> list[str]:
        """One legend name per map point: its sense label, sentence line or word."""
        t, rows = self.table, self.map_rows
        if how == "label" and t.labels is not None:
            return [t.labels[r] or "" for r in rows]
        if how == "sentence":
            return [f"line {t.line_numbers[t.occurrences[r].line]}" for r in rows]
        return [t.words[r] for r in rows]

    def colour_first(self, how: str, words: list[str] | None) -> list[str]:
        """The legend names (as ``colour_labels``) of the occurrences of ``words`` (the words the view or a lecture
        step names), in map order, each once: they get colours before the most frequent other names."""
        if not words or self.table is None:
            return []
        wanted = {w.lower() for w in words}
        names = self.colour_labels(how)
        return list(dict.fromkeys(name for row, name in zip(self.map_rows, names)
                                  if self.table.words[row].lower() in wanted))

    def words_with_senses(self) -> list[str]:
        """Words with two or more sense labels (what the layer sweep can score), sorted."""
        t = self.table
        if t is None or t.labels is None:
            return []
        senses: dict[str, set] = {}
        for word, label in zip(t.words, t.labels):
            if label:
                senses.setdefault(word, set()).add(label)
        return sorted(w for w, s in senses.items() if len(s) >= 2)

    def neighbour_index(self, which: str) -> Any:
        """The cosine index of the current representation ("contextual") or of the static baseline."""
        from lm_workbench.engine.embeddings.neighbours import NeighbourIndex

        if which not in self._indexes:
            vectors = self.vectors if which == "contextual" else np.asarray(self.table.vectors["static"], np.float32)
            self._indexes[which] = NeighbourIndex(vectors)
        return self._indexes[which]

    def neighbours(self, row: int, which: str, k: int, same_word: bool = False) -> list:
        """The ``k`` nearest occurrences to ``row`` by cosine, never from its own sentence."""
        return _query(self.neighbour_index(which), self.table, row, k, same_word)

    def neighbours_b(self, row: int, k: int, same_word: bool = False) -> tuple[list, int | None]:
        """Model B's ``k`` nearest occurrences to the B occurrence over A's ``row`` (never from its sentence),
        and that B row; ([], None) when B has no occurrence over the same characters."""
        from lm_workbench.engine.embeddings.neighbours import NeighbourIndex

        b = self.model_b
        b_row = int(b.rows[row]) if b is not None and row < len(b.rows) else -1
        if b_row < 0:
            return [], None
        if "B" not in self._indexes:
            self._indexes["B"] = NeighbourIndex(b.vectors)
        return _query(self._indexes["B"], b.table, b_row, k, same_word), b_row

    def sentence_texts(self, count: int) -> list[str]:
        """The selection's sentences (in order, once each), else the corpus's first lines; at most ``count``."""
        t = self.table
        if t is not None and len(self.selection):
            lines = dict.fromkeys(t.occurrences[r].line for r in self.selected_occurrences())
            return [t.sentences[i] for i in list(lines)[:count]]
        return list(self.corpus.lines[:count]) if self.corpus is not None else []


def _query(index: Any, table: Any, row: int, k: int, same_word: bool) -> list:
    """``index``'s ``k`` nearest occurrences of ``table`` to ``row``, none from its sentence (``same_word``:
    only occurrences of its word)."""
    lines = np.fromiter((o.line for o in table.occurrences), dtype=np.int64, count=len(table))
    exclude = lines == table.occurrences[row].line
    candidates = np.array(table.words, dtype=object) == table.words[row] if same_word else None
    return index.query(row, k, exclude=exclude, candidates=candidates)

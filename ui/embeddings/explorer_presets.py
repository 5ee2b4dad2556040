"""The Embeddings tab's lecture-preset side: a step's settings applied to the view, and its state read back
(``preset_state``), for presets, workspaces and the Guide. A mixin of ``EmbeddingExplorerView``."""

from __future__ import annotations

from typing import Any


class ExplorerPresets:
    """``apply_preset_step`` / ``preset_state`` of the Embeddings tab (its widgets and state are the view's)."""

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``inputs["corpus"]`` ("demo" or lines, labels, label_name), and
        ``words``, ``layer`` (a layer spec: 6, static, mean:2-4), ``k``, ``same_word`` and ``query`` (the
        ``occurrence``-th occurrence of ``word``: its neighbours are listed once the map is shown)."""
        from lm_workbench.embeddings.for_views import Corpus

        if "k" in settings:
            self.neighbours.k_spin.setValue(int(settings["k"]))
        if "same_word" in settings:
            self.neighbours.same_word.setChecked(bool(settings["same_word"]))
        self._preset_query = settings.get("query")
        words_changed = False
        if "words" in settings:
            words = ", ".join(settings["words"] or [])
            words_changed = words != self.picker._last_words
            self.picker.words_edit.setText(words)
            self.picker._last_words = words
        if "layer" in settings:
            self._set_layer_spec(str(settings["layer"]))
        corpus = inputs.get("corpus")
        if corpus == "demo":
            if self.state.corpus is None or not str(self.state.corpus.source).startswith("demo set"):
                self.use_demo()
                return
        elif corpus is not None:
            new = Corpus(lines=list(corpus["lines"]), labels=corpus.get("labels"),
                         source=corpus.get("source", "lecture preset"), label_name=corpus.get("label_name"))
            old = self.state.corpus
            if old is None or old.lines != new.lines or old.labels != new.labels:
                self.set_corpus(new)  # embeds it; the map, then the query, follow
                return
        if words_changed:
            self.embed()
            return
        self.update_map()
        self._apply_preset_query()

    def _set_layer_spec(self, spec: str) -> None:
        """Pick a layer, the static baseline or a mean of layers (a scalar mix is not set from a spec)."""
        p = self.picker
        p.blockSignals(True)
        try:
            if spec == "static":
                p.set_kind("static")
            elif spec.startswith("mean:"):
                a, b = (int(x) for x in spec[5:].split("-"))
                p.set_kind("mean")
                p.start_spin.setValue(a)
                p.end_spin.setValue(b)
            else:
                layer = int(spec)
                if layer < 0:  # from the end, as parse_layer_spec (and a lecture claim's metric) reads it: -1 the last
                    layer += p.num_layers + 1
                p.set_kind("layer")
                p.layer_spin.setValue(layer)
        except ValueError:
            self.notice.show_message(f"The representation {spec!r} cannot be set here; kept {p.spec_text()}.",
                                     "info")
        finally:
            p.blockSignals(False)

    def _apply_preset_query(self) -> None:
        query, t = getattr(self, "_preset_query", None), self.state.table
        if not query or t is None or self.state.coords is None:
            return
        word = str(query.get("word", "")).lower()
        rows = [r for r, w in enumerate(t.words) if w.lower() == word]
        n = int(query.get("occurrence", 0))
        if n < len(rows) and self.state.point_of_occurrence(rows[n]) is not None:
            self.select_occurrence(rows[n])
        if not self.ctx.jobs.busy():
            self._preset_query = None

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What ``apply_preset_step`` needs to show this again: the settings and the corpus itself."""
        st = self.state
        settings: dict[str, Any] = {"words": self.picker.words() or [], "layer": self.picker.spec_text(),
                                    "k": self.neighbours.k(), "same_word": self.neighbours.same_word.isChecked()}
        row = st.current_occurrence()
        if row is not None and st.table is not None:
            word = st.table.words[row]
            same = [r for r, w in enumerate(st.table.words) if w == word]
            settings["query"] = {"word": word, "occurrence": same.index(row)}
        inputs: dict[str, Any] = {}
        c = st.corpus
        if c is not None:
            inputs["corpus"] = "demo" if str(c.source).startswith("demo set") else {
                "lines": list(c.lines), "labels": None if c.labels is None else list(c.labels),
                "label_name": c.label_name, "source": c.source}
        return settings, inputs

    # -------------------------------------------------------------- export

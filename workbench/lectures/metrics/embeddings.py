"""The Embeddings view's metrics: the query occurrence's nearest neighbours, as the Neighbours panel lists them.

The step's corpus (its lines and sense labels, or ``"demo"``) is embedded with the view's job
(``lm_workbench.embeddings.view_tasks.extract``: every layer and the static baseline, mean-pooled words), the
representation is the step's ``layer`` spec, and the neighbours of the ``query`` occurrence come from the
view's own ``EmbeddingsState.neighbours`` (k nearest by cosine, never from the query's sentence, ties kept
whole; ``same_word``: only occurrences of the query's word). ``of``: ``"contextual"`` (the layer spec, the
default) or ``"static"`` (the input-embedding baseline the panel lists beside it).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, int_arg, metrics_of

OF = {"of": "contextual (the step's layer, default) or static (the input embeddings)"}


def _state(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.embeddings import view_tasks
        from lm_workbench.embeddings.state import EmbeddingsState
        from lm_workbench.engine.embeddings.corpus import Corpus
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion

        corpus_in = run.inputs.get("corpus")
        if corpus_in is None or corpus_in == "demo":
            corpus, _words = view_tasks.demo_corpus(NEVER_CANCELLED)
        else:
            corpus = Corpus(lines=list(corpus_in["lines"]), labels=corpus_in.get("labels"),
                            source=corpus_in.get("source", "lecture preset"), label_name=corpus_in.get("label_name"))
        words = list(run.settings.get("words") or []) or None
        table = run_to_completion(view_tasks.extract(run.loaded, corpus, words, "mean", NEVER_CANCELLED))
        state = EmbeddingsState()
        state.set_corpus(corpus)
        state.set_table(("claims", id(table)), table)
        spec, vectors = view_tasks.representation(table, str(run.settings.get("layer", table.num_layers)))
        state.set_representation(spec, vectors)
        return state

    return run.once("state", build)


def _query_row(run: StepRun, state: Any) -> int:
    query = run.settings.get("query") or {}
    word = str(query.get("word", "")).lower()
    if not word:
        raise WorkbenchError("the step names no query occurrence (settings.query.word)")
    rows = [r for r, w in enumerate(state.table.words) if w.lower() == word]
    n = int(query.get("occurrence", 0))
    if n >= len(rows):
        raise WorkbenchError(f"the corpus has {len(rows)} occurrence(s) of {word!r}, not an occurrence {n}")
    return rows[n]


def _neighbours(run: StepRun, args: dict[str, Any]) -> tuple[Any, int, list]:
    which = str(args.get("of", "contextual"))
    if which not in ("contextual", "static"):
        raise WorkbenchError(f"of is contextual or static, not {which!r}")
    state = _state(run)
    row = _query_row(run, state)
    k, same = int(run.settings.get("k", 5)), bool(run.settings.get("same_word", False))
    return state, row, run.once(("neighbours", which), lambda: state.neighbours(row, which, k, same))


def _label_of(state: Any, row: int) -> str | None:
    labels = state.table.labels
    return labels[row] if labels is not None else None


def same_sense_first(run: StepRun, args: dict[str, Any]) -> float | None:
    """Of the first R neighbours (R: the other occurrences of the query's word, in other sentences, with its
    label; or ``n`` when given), the share with the query's label: 1.0 when the same sense comes first."""
    state, row, found = _neighbours(run, args)
    label, t = _label_of(state, row), state.table
    if label is None:
        raise WorkbenchError("the corpus has no sense labels")
    line, word = t.occurrences[row].line, t.words[row]
    r = sum(1 for i, (w, lab) in enumerate(zip(t.words, t.labels))
            if i != row and w == word and lab == label and t.occurrences[i].line != line)
    if "n" in args:
        r = int_arg(args, "n")
    first = sorted(found, key=lambda n: -n.score)[:min(r, len(found))]
    return sum(t.labels[n.index] == label for n in first) / len(first) if first else None


def same_sense_share(run: StepRun, args: dict[str, Any]) -> float | None:
    """The share of the listed neighbours (k, ties whole) with the query's label."""
    state, row, found = _neighbours(run, args)
    label = _label_of(state, row)
    if label is None:
        raise WorkbenchError("the corpus has no sense labels")
    return sum(state.table.labels[n.index] == label for n in found) / len(found) if found else None


def min_score(run: StepRun, args: dict[str, Any]) -> float | None:
    _s, _r, found = _neighbours(run, args)
    return finite(min(n.score for n in found)) if found else None


def max_score(run: StepRun, args: dict[str, Any]) -> float | None:
    _s, _r, found = _neighbours(run, args)
    return finite(max(n.score for n in found)) if found else None


METRICS = metrics_of(
    "embeddings",
    Metric("same_sense_first", same_sense_first, "share of the first R neighbours with the query's sense "
           "(R: its other same-sense occurrences, or n)", OF | {"n": "how many of the nearest (default R)"}),
    Metric("same_sense_share", same_sense_share, "share of the listed neighbours with the query's sense", OF),
    Metric("min_score", min_score, "the lowest cosine among the listed neighbours", OF),
    Metric("max_score", max_score, "the highest cosine among the listed neighbours", OF),
)

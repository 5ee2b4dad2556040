"""``neighbours`` and ``project`` computed for both front ends: contextual embeddings of every occurrence of a
word (or of every word) across a corpus, at a layer spec (``N | static | mean:A-B | mix:s0,...,sL[:gamma]``;
ELMo's scalar mix, Peters et al. 2018), then the nearest occurrences in other lines by cosine, or a 2-D map
(PCA, UMAP: McInnes et al. 2018, t-SNE: van der Maaten & Hinton 2008). The CLI's handlers read the corpus before
the model loads and print; the Python API returns the result (``project``: its CSV kept, ``save`` writes it).
Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from lm_workbench.command_results.checks import note, output_file, positive_k, write_or_fail
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.engine.errors import WorkbenchError

DEMO_CORPUS = "demo"
CSV_HEADER = ["line", "word_index", "word", "label", "x", "y"]


def read_corpus(request: Any) -> Any:
    """The corpus ``request.corpus`` names (``demo``: the built-in polysemy set when no such file exists)."""
    from lm_workbench.engine.embeddings.corpus import read_corpus as read
    from lm_workbench.engine.embeddings.demo_set import demo_corpus
    from lm_workbench.engine.progress import run_to_completion

    if request.corpus == DEMO_CORPUS and not Path(request.corpus).exists():
        return demo_corpus()
    return run_to_completion(read(request.corpus, text_column=request.text_column,
                                  label_column=request.label_column, tsv_quoting=request.tsv_quoting))


def check_word(word: str) -> str:
    """``--word``: one word (spaces around it dropped)."""
    if not word.strip() or len(word.split()) != 1:
        raise WorkbenchError(f"--word takes one word, not {word!r}")
    return word.strip()


def parse_params(pairs: Any) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as a dict (values read as int, else float, else text)."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise WorkbenchError(f"--set takes KEY=VALUE, not {pair!r}")
        params[key.strip()] = _param_value(value.strip())
    return params


def _param_value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _cache(request: Any) -> Any:
    if not request.cache:
        return None
    from lm_workbench.engine.embeddings.activation_cache import ActivationCache
    from lm_workbench.paths import cache_dir

    return ActivationCache(cache_dir() / "activations")


def _extract(request: Any, loaded: Any, corpus: Any, words: list[str] | None) -> tuple[Any, Any]:
    """(table of occurrence vectors, layer spec)."""
    from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
    from lm_workbench.engine.embeddings.representation import parse_layer_spec
    from lm_workbench.engine.progress import run_to_completion

    spec = parse_layer_spec(request.layer, loaded.info.layers)
    table = run_to_completion(extract_occurrence_vectors(
        loaded, corpus, words=words, layers=spec.layers_needed, pooling=request.pooling, cache=_cache(request)))
    for notice in table.notices:
        note(notice)
    return table, spec


def neighbours_report(table: Any, vectors: Any, k: int) -> dict:
    """The ``neighbours`` JSON for every occurrence in ``table`` (neighbours never on the same line)."""
    import numpy as np

    from lm_workbench.engine.embeddings.neighbours import NeighbourIndex

    index = NeighbourIndex(vectors)
    lines = np.asarray([o.line for o in table.occurrences])  # [n] corpus line of each row
    source_line = table.line_numbers
    out = []
    for i, occ in enumerate(table.occurrences):
        found = index.query(i, k, exclude=lines == occ.line)
        out.append({
            "line": source_line[occ.line],
            "word_index": occ.word_index,
            "neighbours": [{"line": source_line[table.occurrences[nb.index].line],
                            "word_index": table.occurrences[nb.index].word_index,
                            "score": float(nb.score)} for nb in found],
        })
    return {"occurrences": out}


def check_neighbours(request: Any) -> str:
    """``k`` at least 1 and one word (before the model loads); the word."""
    positive_k(request.k)
    return check_word(request.word)


def neighbours(request: Any, loaded: Any, *, corpus: Any = None) -> Result:
    """For every occurrence of ``word``: its ``k`` nearest occurrences in other lines by cosine (``occurrences``:
    line (1-based, of the file), word_index (0-based), neighbours with score in [-1, 1]; ties at the k-th place
    kept whole). ``engine_result``: (corpus, table, layer spec)."""
    word = check_neighbours(request)
    corpus = corpus if corpus is not None else read_corpus(request)
    table, spec = _extract(request, loaded, corpus, [word])
    report = neighbours_report(table, table.vectors_for(spec), request.k)
    return result_for("neighbours", as_json(report), engine_result=(corpus, table, spec))


def check_project(request: Any) -> tuple[list[str] | None, dict[str, Any]]:
    """The words (None: every word) and the method's parameters, checked (before the model loads); ``out``, when
    given, a .csv file in a folder that exists."""
    if request.out is not None:
        output_file(request.out, ".csv", "a .csv file", ignore_case=True)
    words = [check_word(w) for w in request.word] if request.word else None
    return words, parse_params(request.set)


def project(request: Any, loaded: Any, *, corpus: Any = None) -> Result:
    """A 2-D map of the occurrences (``points``, ``method``, ``seed``, ``layer``, ``truncated_lines``); the CSV
    (line, word_index, word, label, x, y) written to ``out`` when given, and kept (``save`` writes it)."""
    from lm_workbench.engine.embeddings.projection import project as project_vectors
    from lm_workbench.engine.progress import run_to_completion
    from lm_workbench.export import export_csv

    words, params = check_project(request)
    corpus = corpus if corpus is not None else read_corpus(request)
    table, spec = _extract(request, loaded, corpus, words)
    coords = run_to_completion(project_vectors(table.vectors_for(spec), request.method, seed=request.seed,
                                               params=params))
    labels = table.labels or [None] * len(table)
    rows = [[table.line_numbers[o.line], o.word_index, o.word, "" if label is None else label,
             float(x), float(y)] for o, label, (x, y) in zip(table.occurrences, labels, coords)]
    if request.out is not None:
        out = Path(request.out)
        write_or_fail(out, lambda: export_csv(out, (CSV_HEADER, rows)))
        data = out.read_bytes()
    else:
        with tempfile.TemporaryDirectory(prefix="lm-workbench-") as folder:
            temp = Path(folder) / "map.csv"
            export_csv(temp, (CSV_HEADER, rows))
            data = temp.read_bytes()
    summary = {"out": None if request.out is None else str(request.out), "points": len(rows),
               "method": request.method, "seed": request.seed, "layer": spec.text,
               "truncated_lines": table.truncated_lines}
    return result_for("project", as_json(summary), file=data, engine_result=(corpus, table, spec))

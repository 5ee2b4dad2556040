"""Model B's vectors for the same corpus, lined up with model A's occurrences (the Neighbours A | B).

Both models' occurrence tables are read from the same corpus lines, each with its own tokenizer's words, so a
word occurrence is the same in both when it covers the same characters of the same line (``aligned_rows``);
where the tokenizers cut a line differently ("U.S." one word for one, three for the other) the occurrence
has no partner and the view says so. B's representation is A's written the same way when B has those layers
("6", "mean:4-6"), else B's last layer, with a note (``counterpart_representation``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.embeddings.representation import LayerSpec, parse_layer_spec
from lm_workbench.engine.embeddings.table import OccurrenceTable
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress


@dataclass
class ComparedVectors:
    """B's occurrence table, the B row of each A occurrence (-1: none) and B's representation."""

    table: OccurrenceTable
    rows: np.ndarray  # [len(A's table)] int64
    spec: LayerSpec
    vectors: np.ndarray  # [len(B's table), H_B] float32
    note: str = ""  # why B's representation is not A's, or ""
    for_spec: str = ""  # A's spec text B's representation was read for


def aligned_rows(table_a: OccurrenceTable, table_b: OccurrenceTable) -> np.ndarray:
    """For each occurrence of A, the occurrence of B over the same characters of the same line, else -1."""
    where = {(o.line, o.char_start, o.char_end): i for i, o in enumerate(table_b.occurrences)}
    return np.fromiter((where.get((o.line, o.char_start, o.char_end), -1) for o in table_a.occurrences),
                       dtype=np.int64, count=len(table_a))


def counterpart_representation(table_b: OccurrenceTable, spec_text: str) -> tuple[LayerSpec, np.ndarray, str]:
    """(B's spec, its vectors [n, H], a note): A's spec ``spec_text`` read for B, else B's last layer."""
    note = ""
    try:
        spec = parse_layer_spec(spec_text, table_b.num_layers)
    except WorkbenchError:
        spec = LayerSpec("layer", layer=table_b.num_layers)
        note = f"B has {table_b.num_layers} layers, so B's neighbours use its last layer instead of A's {spec_text!r}"
    return spec, table_b.vectors_for(spec), note


def compared_vectors_job(loaded_b: Any, corpus: Any, words: Sequence[str] | None, pooling: str,
                           table_a: OccurrenceTable, spec_text: str, cache: Any = None,
                           cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, ComparedVectors]:
    """Embed ``corpus`` with model B as A's table was (every layer, the same words and pooling), line B's
    occurrences up with A's and read B's representation. A job: yields Progress."""
    from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors

    layers = [*range(loaded_b.info.layers + 1), "static"]
    table_b = yield from extract_occurrence_vectors(loaded_b, corpus, words=words, layers=layers, pooling=pooling,
                                                    cache=cache, cancel=cancel)
    cancel.check()
    spec, vectors, note = counterpart_representation(table_b, spec_text)
    return ComparedVectors(table_b, aligned_rows(table_a, table_b), spec, vectors, note, spec_text)

"""Extract one vector per word occurrence, per layer, from any model the workbench loads.

Two passes over the corpus, both chunked so a large corpus never sits in
memory as tensors:

1. find the occurrences: tokenize each chunk of lines exactly as
   ``lm_workbench.engine.analysis.encode_texts`` will (same tokenizer call, same window),
   find the chosen words (``occurrences``: whole pre-tokenised words, or runs
   of characters between token boundaries in scripts written without
   spaces), and count lines longer than the window (truncated; occurrences
   past the window are dropped and counted, never an error);
2. encode only the lines that hold an occurrence with ``encode_texts``
   (``hidden_layers=`` the layers asked for, no attentions; progress and
   cancel between batches) and pool each word's subword vectors.

The static baseline (the input embedding matrix's rows for the word's
subwords, pooled) is always included under the key ``"static"``. For ELMo
it is layer 0, the character-CNN word vector: a function of the word's
characters alone, so it is static by construction.

Which hidden states: an encoder's; a decoder's own (each position sees only
its left context, so a word's vector knows nothing of what follows it); for
an encoder-decoder, the encoder's (the decoder is fed a one-token placeholder
target so no generation runs, and its states are ignored).

With an ``ActivationCache`` the vectors are written to, and served from,
float16 memory maps; without one they are float32 arrays in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterable, Sequence

import numpy as np
import torch

from lm_workbench.engine.analysis import encode_texts
from lm_workbench.engine.embeddings.activation_cache import (
    ActivationCache, LayerKey, PendingWrite, model_fingerprint, request_key,
)
from lm_workbench.engine.embeddings.corpus import Corpus, require_lines
from lm_workbench.engine.embeddings.names import WORD_POOLINGS
from lm_workbench.engine.embeddings.occurrences import (
    HOW_WORDS_ARE_FOUND, Occurrence, find_occurrences, normalise_words, text_occurrences,
)
from lm_workbench.engine.embeddings.table import OccurrenceTable
from lm_workbench.engine.errors import InsufficientMemoryError, WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.memory import available_bytes, format_bytes
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay
from lm_workbench.engine.tokens import tokenize, tokenize_many

__all__ = ["OccurrenceTable", "extract_occurrence_vectors", "scan_occurrences"]

SCAN_CHUNK_LINES = 2048
ENCODE_CHUNK_LINES = 256
MEMORY_SHARE = 0.5  # in-memory tables may use at most this share of free RAM


@dataclass
class Scan:
    """Pass 1's result: occurrences (rows in order), their subword ids, and truncation counts."""

    occurrences: list[Occurrence]
    token_ids: list[list[int]]  # the subword ids of each occurrence
    truncated_lines: int
    dropped_occurrences: int


def _window(loaded: Any) -> int | None:
    return loaded.info.max_positions


def scan_occurrences(loaded: Any, corpus: Corpus, words: frozenset[str] | None,
                     cancel: CancelToken = NEVER_CANCELLED,
                     check_count: Callable[[int], None] | None = None) -> Generator[Progress, None, Scan]:
    """Pass 1: every occurrence of ``words`` (None = every word), line by line, in corpus order.

    ``check_count(count so far)`` runs after every chunk, so a request that
    will not fit is refused early instead of after scanning a huge corpus.
    """
    tokenizer, window = loaded.tokenizer, _window(loaded)
    n = len(corpus.lines)
    occurrences: list[Occurrence] = []
    token_ids: list[list[int]] = []
    truncated = dropped = 0
    for start in range(0, n, SCAN_CHUNK_LINES):
        cancel.check()
        chunk = corpus.lines[start:start + SCAN_CHUNK_LINES]
        for offset, tok in enumerate(tokenize_many(tokenizer, chunk, max_length=window)):
            line = start + offset
            found = find_occurrences(tok, words, line=line)
            if tok.truncated:
                truncated += 1
                dropped += len(find_occurrences(tokenize(tokenizer, tok.text), words, line=line)) - len(found)
            for occ in found:
                occurrences.append(occ)
                token_ids.append(tok.ids[occ.token_start:occ.token_end])
        done = min(n, start + SCAN_CHUNK_LINES)
        if check_count is not None and done < n:  # the caller checks the exact count at the end
            check_count(len(occurrences))
        yield Progress(done, n, f"finding words: {done}/{n} lines, {len(occurrences)} occurrences")
    return Scan(occurrences, token_ids, truncated, dropped)


def _layer_keys(layers: Iterable[LayerKey], num_layers: int) -> list[LayerKey]:
    """"static" first, then the distinct layer numbers (negative counts from the end), validated."""
    numbers: set[int] = set()
    for layer in layers:
        if layer == "static":
            continue
        n = int(layer)
        n = n + num_layers + 1 if n < 0 else n
        if not 0 <= n <= num_layers:
            raise WorkbenchError(f"layer {layer} is outside 0..{num_layers} (the model has {num_layers} layers)")
        numbers.add(n)
    return ["static", *sorted(numbers)]


def _notices(scan_truncated: int, dropped: int, window: int | None) -> list[str]:
    out = []
    if scan_truncated:
        out.append(f"{scan_truncated} line(s) are longer than the model's window of {window} tokens and were "
                   f"cut; {dropped} occurrence(s) beyond the window were left out")
    return out


def _no_occurrences(corpus: Corpus, words: frozenset[str] | None) -> WorkbenchError:
    """The refusal when nothing was found: what was looked for, where, how words are found, and (when a word
    is in the text but never as a word) how often it appears as plain text."""
    if words is None:
        return WorkbenchError(f"the corpus ({corpus.source}) has no words to embed")
    listed = ", ".join(repr(w) for w in sorted(words))
    where = f"({len(corpus.lines)} lines of {corpus.source})"
    head = (f"{listed} does not occur in the corpus {where}" if len(words) == 1 else
            f"none of {listed} occurs in the corpus {where}")
    inside = {w: text_occurrences(corpus.lines, w) for w in sorted(words)}
    seen = [f"{w!r} appears {n} time(s) inside other words or tokens" for w, n in inside.items() if n]
    return WorkbenchError(f"{head}: {HOW_WORDS_ARE_FOUND}" + (f" ({'; '.join(seen)})" if seen else ""))


def _table(loaded: Any, corpus: Corpus, occurrences: list[Occurrence], vectors: dict, pooling: str,
           truncated: int, dropped: int, from_cache: bool) -> OccurrenceTable:
    labels = None
    if corpus.labels is not None:
        labels = [corpus.labels[o.line] for o in occurrences]
    return OccurrenceTable(
        occurrences=occurrences, vectors=vectors, sentences=corpus.lines, labels=labels,
        line_numbers=corpus.line_numbers, num_layers=loaded.info.layers, pooling=pooling,
        model=loaded.info.spec, family=loaded.info.family, truncated_lines=truncated,
        dropped_occurrences=dropped, notices=_notices(truncated, dropped, _window(loaded)), from_cache=from_cache,
    )


def _occurrences_array(occurrences: list[Occurrence]) -> np.ndarray:
    return np.asarray([[o.line, o.word_index, o.token_start, o.token_end, o.char_start, o.char_end]
                       for o in occurrences], dtype=np.int64).reshape(-1, 6)


def _occurrences_from_array(array: np.ndarray, corpus: Corpus) -> list[Occurrence]:
    out = []
    for line, word_index, t0, t1, c0, c1 in array.tolist():
        out.append(Occurrence(line, word_index, corpus.lines[line][c0:c1], t0, t1, c0, c1))
    return out


def _static_vectors(loaded: Any, token_ids: list[list[int]], pooling: str, out: np.ndarray,
                    cancel: CancelToken) -> None:
    """Rows of the input embedding matrix for each occurrence's subwords, pooled, into ``out`` [n, H]."""
    weight = loaded.base_model.get_input_embeddings().weight  # [vocab, H]
    block = 4096
    with torch.inference_mode():
        for start in range(0, len(token_ids), block):
            cancel.check()
            chosen = [ids if pooling == "mean" else ids[:1] if pooling == "first" else ids[-1:]
                      for ids in token_ids[start:start + block]]
            lengths = np.asarray([len(ids) for ids in chosen])  # [rows]
            flat = torch.tensor([i for ids in chosen for i in ids], dtype=torch.long, device=weight.device)
            rows = weight.index_select(0, flat).float().cpu().numpy()  # [sum(lengths), H]
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
            out[start:start + len(chosen)] = np.add.reduceat(rows, starts, axis=0) / lengths[:, None]


def _pool_rows(hidden: np.ndarray, start: int, end: int, pooling: str) -> np.ndarray:
    """hidden: [layers, tokens, H] -> [layers, H] pooled over tokens start..end-1."""
    if pooling == "first":
        return hidden[:, start]
    if pooling == "last":
        return hidden[:, end - 1]
    return hidden[:, start:end].mean(axis=1)


def _contextual_vectors(loaded: Any, corpus: Corpus, occurrences: list[Occurrence], layers: list[int],
                        pooling: str, outputs: dict[LayerKey, np.ndarray], batch_size: int,
                        cancel: CancelToken) -> Generator[Progress, None, None]:
    """Pass 2: encode the lines that hold occurrences and write pooled vectors into ``outputs``."""
    rows_of_line: dict[int, list[int]] = {}
    for row, occ in enumerate(occurrences):
        rows_of_line.setdefault(occ.line, []).append(row)
    lines = sorted(rows_of_line)
    seq2seq = loaded.family is Family.ENCODER_DECODER
    # Encoder-decoders return every layer (their decoder may have fewer layers than the encoder).
    hidden_layers = None if seq2seq else layers
    position = {layer: (layer if seq2seq else i) for i, layer in enumerate(layers)}
    total = len(lines)
    for start in range(0, total, ENCODE_CHUNK_LINES):
        chunk = lines[start:start + ENCODE_CHUNK_LINES]
        texts = [corpus.lines[i] for i in chunk]
        def lines_done(report: object, start: int = start, size: int = len(chunk)) -> Progress | None:
            if not (isinstance(report, Progress) and report.total):
                return None
            done = start + round(size * report.fraction)
            return Progress(done, total, f"encoding: {done}/{total} lines with occurrences")

        encodings = yield from relay(
            encode_texts(loaded, texts, targets=["."] * len(texts) if seq2seq else None, attentions=False,
                         hidden_layers=hidden_layers, batch_size=batch_size, cancel=cancel), lines_done)
        for line, enc in zip(chunk, encodings):
            hidden = enc.hidden_states  # [chosen layers (all for seq2seq), tokens, H]
            for row in rows_of_line[line]:
                occ = occurrences[row]
                pooled = _pool_rows(hidden, occ.token_start, occ.token_end, pooling)  # [chosen layers, H]
                for layer in layers:
                    outputs[layer][row] = pooled[position[layer]]
        cancel.check()


def extract_occurrence_vectors(
    loaded: Any,
    corpus: Corpus,
    *,
    words: Iterable[str] | None = None,
    layers: Sequence[LayerKey] = (-1,),
    pooling: str = "mean",
    cache: ActivationCache | None = None,
    batch_size: int = 16,
    cancel: CancelToken = NEVER_CANCELLED,
) -> Generator[Progress, None, OccurrenceTable]:
    """Vectors of every occurrence of ``words`` (None = every word) at ``layers`` plus "static"."""
    if pooling not in WORD_POOLINGS:
        raise WorkbenchError(f"pooling must be one of {', '.join(WORD_POOLINGS)}, not {pooling!r}")
    require_lines(corpus)
    wanted = normalise_words(words)
    keys = _layer_keys(layers, loaded.info.layers)
    hidden = loaded.info.hidden_size

    key = None
    if cache is not None:
        key = request_key(model_fingerprint(loaded), corpus.fingerprint(), pooling, wanted)
        entry = cache.read(key, keys)
        if entry is not None:
            yield Progress(1, 1, f"read {len(entry.occurrences)} occurrences from the activation cache")
            occs = _occurrences_from_array(entry.occurrences, corpus)
            meta = entry.meta
            return _table(loaded, corpus, occs, entry.vectors, pooling, int(meta.get("truncated_lines", 0)),
                          int(meta.get("dropped_occurrences", 0)), from_cache=True)

    def check_count(count: int, at_least: bool = True) -> None:
        if cache is not None:
            cache.check_request(cache.request_bytes(count, hidden, len(keys)), at_least=at_least)
            return
        need, free = count * hidden * len(keys) * 4, available_bytes("cpu")
        if need > free * MEMORY_SHARE:
            raise InsufficientMemoryError(
                f"{'at least ' if at_least else ''}{count} occurrences x {len(keys)} layers x {hidden} floats "
                f"need {format_bytes(need)}, more than half of the {format_bytes(free)} free: "
                "choose fewer layers or words"
            )

    scan = yield from scan_occurrences(loaded, corpus, wanted, cancel, check_count)
    n = len(scan.occurrences)
    if n == 0:
        raise _no_occurrences(corpus, wanted)
    check_count(n, at_least=False)

    pending: PendingWrite | None = None
    if cache is not None:
        stored = cache.cached_layers(key)
        meta = cache.read_meta(key) or {}
        if stored and meta.get("n") != n:
            cache.evict(key)
            stored = set()
        new = [k for k in keys if str(k) not in stored]
        size = cache.request_bytes(n, hidden, len(keys))
        cache.ensure_room(key, size, cache.request_bytes(n, hidden, len(new)), keys)
        meta = {"n": n, "model": loaded.info.spec, "pooling": pooling,
                "words": None if wanted is None else sorted(wanted),
                "truncated_lines": scan.truncated_lines, "dropped_occurrences": scan.dropped_occurrences}
        pending = cache.begin_write(key, meta, _occurrences_array(scan.occurrences), new, hidden)
        outputs = pending.arrays
    else:
        outputs = {k: np.empty((n, hidden), dtype=np.float32) for k in keys}

    try:
        targets: dict[LayerKey, np.ndarray] = {k: v for k, v in outputs.items() if k != "static"}
        static_is_layer_0 = loaded.family is Family.BILM and "static" in outputs
        if static_is_layer_0:  # ELMo's character-CNN vector (layer 0) depends on the word alone: it IS static
            targets.setdefault(0, outputs["static"])
        elif "static" in outputs:
            _static_vectors(loaded, scan.token_ids, pooling, outputs["static"], cancel)
        if targets:
            yield from _contextual_vectors(loaded, corpus, scan.occurrences, sorted(targets), pooling, targets,
                                           batch_size, cancel)
        if static_is_layer_0 and targets[0] is not outputs["static"]:
            outputs["static"][:] = targets[0]
        if pending is not None:
            pending.commit()
    except BaseException:
        if pending is not None:
            pending.abort()
        raise

    if cache is not None:
        entry = cache.read(key, keys)
        if entry is None:
            raise WorkbenchError(f"the activation cache in {cache.folder} could not be read back; clear it")
        outputs = entry.vectors
    yield Progress(n, n, f"{n} occurrences embedded")
    return _table(loaded, corpus, scan.occurrences, outputs, pooling, scan.truncated_lines,
                  scan.dropped_occurrences, from_cache=False)

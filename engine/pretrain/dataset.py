"""Prepare a pre-training dataset: stream the corpus, tokenize, split, pack, store on disk, cache.

``prepare_dataset`` is a job generator (it yields ``Progress`` and honours a
cancel token) in two streamed passes over the corpus files:

1. count documents and lines, to decide the split: by document when there are
   at least ``MIN_DOCUMENTS_FOR_DOCUMENT_SPLIT`` documents, else by line, with
   a seeded hash per unit (see ``splitting``);
2. tokenize lines in chunks (the tokenizer's Rust backend, in parallel), route
   each line to the train or validation packer, and append the packed examples
   to uint32 token files on disk (see ``packing`` and ``example_set``).

Memory stays bounded by a chunk of lines, whatever the corpus size. The result
lives in a folder under ``cache_dir`` named by a hash of everything it depends
on (each file's path, size and modification time; the tokenizer's fingerprint;
family, sequence length, split settings and the format version), written to a
temporary folder and renamed into place when complete, so a later call with the
same inputs reuses it and a cancelled one leaves nothing half-made.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.objectives.vocab import vocab_info
from lm_workbench.engine.pretrain.corpus import CorpusSpec, corpus_bytes, iter_corpus_lines
from lm_workbench.engine.pretrain.example_set import ExampleSet, ExampleWriter
from lm_workbench.engine.pretrain.packing import family_packer
from lm_workbench.engine.pretrain.sampler import ExampleSampler
from lm_workbench.engine.pretrain.splitting import split_unit, validation_mask
from lm_workbench.engine.pretrain.names import FAMILIES
from lm_workbench.engine.pretrain.tokenizer_training import tokenizer_fingerprint
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

FORMAT_VERSION = 1
CHUNK_LINES = 2048
CHUNK_CHARS = 2_000_000
COUNT_PROGRESS_EVERY = 20_000  # lines
STALE_TMP_SECONDS = 6 * 3600  # a half-built folder this old belongs to a process that died


@dataclass
class PackedDataset:
    """Train and validation examples with their statistics (see ``prepare_dataset``)."""

    train: ExampleSet
    validation: ExampleSet
    stats: dict[str, Any]
    folder: Path | None = None
    cached: bool = False  # True when reused from an earlier preparation


def unigram_entropy(counts: np.ndarray) -> float:
    """Entropy in nats of the distribution the counts give (zero counts ignored)."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts[counts > 0] / total
    return float(-(p * np.log(p)).sum())


def dataset_key(corpus: CorpusSpec, tokenizer: Any, family: str, seq_len: int, keep_documents: bool) -> str:
    """The cache key: a hash of everything the prepared examples depend on."""
    files = []
    for path in corpus.paths:
        stat = Path(path).stat()
        files.append([str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns])
    described = {
        "format": FORMAT_VERSION, "files": files, "tokenizer": tokenizer_fingerprint(tokenizer), "family": family,
        "seq_len": int(seq_len), "keep_documents": bool(keep_documents),
        "validation_fraction": float(corpus.validation_fraction), "seed": int(corpus.seed),
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8")).hexdigest()[:24]


def _load(folder: Path) -> PackedDataset:
    stats = json.loads((folder / "stats.json").read_text(encoding="utf-8"))
    return PackedDataset(ExampleSet(folder, "train"), ExampleSet(folder, "validation"), stats, folder, True)


def _backend(tokenizer: Any) -> Any:
    """A private copy of the fast tokenizer's backend with no truncation or padding."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    from tokenizers import Tokenizer

    copy = Tokenizer.from_str(backend.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


def _encode(backend: Any, tokenizer: Any, lines: list[str]) -> list[list[int]]:
    if backend is not None:
        return [e.ids for e in backend.encode_batch(lines, add_special_tokens=False)]
    return tokenizer(lines, add_special_tokens=False, verbose=False)["input_ids"]


@dataclass
class _Counts:
    documents: int = 0
    lines: int = 0


@dataclass
class _Routing:
    """Which side each document or line goes to."""

    unit: str  # "documents" or "lines"
    validation: np.ndarray  # [n_units] bool

    def is_validation(self, document: int, line: int) -> bool:
        return bool(self.validation[document if self.unit == "documents" else line])


def _count_pass(paths: list[str], total: int, cancel: CancelToken) -> Generator[Progress, None, _Counts]:
    counts = _Counts()
    for line in iter_corpus_lines(paths):
        counts.lines += 1
        counts.documents = line.document + 1
        if counts.lines % COUNT_PROGRESS_EVERY == 0:
            cancel.check()
            yield Progress(line.bytes_done, total, "reading the corpus")
    return counts


def _chunks(paths: list[str]):
    """Lists of (text, document, bytes_done) of about CHUNK_LINES lines / CHUNK_CHARS characters."""
    chunk: list[tuple[str, int, int]] = []
    chars = 0
    for line in iter_corpus_lines(paths):
        chunk.append((line.text, line.document, line.bytes_done))
        chars += len(line.text)
        if len(chunk) >= CHUNK_LINES or chars >= CHUNK_CHARS:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


def _pack_pass(paths: list[str], tokenizer: Any, family: str, seq_len: int, keep_documents: bool,
               routing: _Routing, folder: Path, total: int, cancel: CancelToken
               ) -> Generator[Progress, None, tuple[ExampleWriter, ExampleWriter]]:
    size = len(tokenizer)
    train = ExampleWriter(folder, "train", size, count_tokens=True)
    validation = ExampleWriter(folder, "validation", size)
    try:
        packers = (family_packer(family, tokenizer, train.add, seq_len, keep_documents),
                   family_packer(family, tokenizer, validation.add, seq_len, keep_documents))
        backend = _backend(tokenizer)
        line_number, document = 0, 0
        for chunk in _chunks(paths):
            cancel.check()
            ids_per_line = _encode(backend, tokenizer, [text for text, _, _ in chunk])
            for (_, doc, _), ids in zip(chunk, ids_per_line):
                if doc != document:
                    for packer in packers:
                        packer.end_document()
                    document = doc
                packers[routing.is_validation(doc, line_number)].add_line(ids)
                line_number += 1
            train.flush()
            validation.flush()
            yield Progress(total // 2 + chunk[-1][2], total, "tokenizing and packing")
        for packer in packers:
            packer.finish()
        train.close()
        validation.close()
    except BaseException:
        train.abort()
        validation.abort()
        raise
    return train, validation


def _remove_stale_tmp(cache_dir: Path) -> None:
    """Delete half-built folders left by killed processes (live ones are younger than STALE_TMP_SECONDS)."""
    now = time.time()
    for path in cache_dir.glob(".tmp-*"):
        try:
            if now - path.stat().st_mtime > STALE_TMP_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def _check_inputs(corpus: CorpusSpec, tokenizer: Any, family: str, seq_len: int) -> None:
    if family not in FAMILIES:
        raise WorkbenchError(f"unknown model family {family!r}; choose one of {', '.join(FAMILIES)}")
    if not isinstance(seq_len, int) or seq_len < 2:
        raise WorkbenchError(f"sequence length must be a whole number of at least 2, not {seq_len!r}")
    if not 0.0 <= corpus.validation_fraction < 1.0:
        raise WorkbenchError(f"validation fraction must be in [0, 1), not {corpus.validation_fraction}")
    if len(tokenizer) > np.iinfo(np.uint32).max:
        raise WorkbenchError("the tokenizer's vocabulary is too large")


def prepare_dataset(corpus: CorpusSpec, tokenizer: Any, family: str, seq_len: int, cache_dir: Path, *,
                    keep_documents: bool = True, cancel: CancelToken = NEVER_CANCELLED
                    ) -> Generator[Progress, None, PackedDataset]:
    """Packed train/validation examples of ``corpus`` for ``family``, at most ``seq_len`` tokens each.

    ``keep_documents`` (bert, bart, t5): no example spans two documents
    (needed by next-sentence prediction and sentence permutation); False
    packs across documents for fuller examples. gpt2 always streams across
    documents, separated by ``<|endoftext|>``. ``stats`` holds
    ``train_tokens`` and ``validation_tokens`` (all tokens of the examples,
    special ones included), ``train_examples``, ``validation_examples``,
    ``unigram_entropy`` (nats, over the train examples' non-special tokens),
    ``documents``, ``lines``, ``split_by`` and the inputs.
    """
    _check_inputs(corpus, tokenizer, family, seq_len)
    paths = [str(p) for p in corpus.paths]
    total = 2 * max(1, corpus_bytes(paths))  # checks the files exist
    cache_dir = Path(cache_dir)
    key = dataset_key(corpus, tokenizer, family, seq_len, keep_documents)
    final = cache_dir / f"{family}-{seq_len}-{key}"
    if (final / "stats.json").is_file():
        yield Progress(total, total, "using the prepared dataset")
        return _load(final)

    yield Progress(0, total, "reading the corpus")
    counts = yield from _count_pass(paths, total, cancel)
    unit = split_unit(counts.documents)
    n_units = counts.documents if unit == "documents" else counts.lines
    routing = _Routing(unit, validation_mask(n_units, corpus.validation_fraction, corpus.seed))

    cache_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_tmp(cache_dir)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=cache_dir))
    try:
        train, validation = yield from _pack_pass(paths, tokenizer, family, seq_len, keep_documents, routing,
                                                  tmp, total, cancel)
        counts_by_id = train.counts.copy()  # [vocab] int64
        special = vocab_info(tokenizer).special_ids
        counts_by_id[special[special < len(counts_by_id)]] = 0
        stats = {
            "train_tokens": train.tokens, "validation_tokens": validation.tokens,
            "train_examples": train.examples, "validation_examples": validation.examples,
            "unigram_entropy": unigram_entropy(counts_by_id), "documents": counts.documents,
            "lines": counts.lines, "split_by": unit, "validation_units": int(routing.validation.sum()),
            "family": family, "seq_len": seq_len, "keep_documents": keep_documents,
            "vocab_size": len(tokenizer), "validation_fraction": corpus.validation_fraction, "seed": corpus.seed,
            "key": key,
        }
        if not stats["train_examples"]:
            raise WorkbenchError("the corpus gave no training examples; the tokenizer found no tokens in it")
        (tmp / "stats.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
        try:
            os.replace(tmp, final)
        except OSError:  # another process finished the same dataset first: use theirs
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    yield Progress(total, total, "dataset ready")
    result = _load(final)
    result.cached = False
    return result


__all__ = [
    "ExampleSampler", "ExampleSet", "FORMAT_VERSION", "PackedDataset", "dataset_key", "prepare_dataset",
    "unigram_entropy",
]

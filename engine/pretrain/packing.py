"""Sequence packing: lines of token ids in, examples of at most ``seq_len`` tokens out.

Two layouts, after the families' originals:

- ``LinePacker`` (bert, bart, t5, elmo): consecutive lines (sentences or paragraphs)
  of a document fill one example as long as they fit whole; a line that does
  not fit starts the next example, and a line longer than an example is cut
  into full-size pieces. Each example is wrapped in the family's special tokens
  (bert ``[CLS] ... [SEP]``, bart ``<s> ... </s>``, t5 ``... </s>``, elmo none), which
  count toward ``seq_len``. With ``keep_documents`` an example never spans two
  documents, so next-sentence pairs and permuted sentences come from one text.
- ``StreamPacker`` (gpt2): the documents are one stream, each followed by
  ``<|endoftext|>``, cut into blocks of exactly ``seq_len`` tokens (GPT-2's
  layout); the last block keeps what is left if it has at least 2 tokens
  (one token gives nothing to predict).

Both hand finished examples to ``emit``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.wording import with_article

Emit = Callable[[list[int]], None]


class LinePacker:
    def __init__(self, emit: Emit, seq_len: int, prefix: Sequence[int], suffix: Sequence[int],
                 keep_documents: bool = True):
        self.budget = seq_len - len(prefix) - len(suffix)
        if self.budget < 1:
            raise WorkbenchError(f"sequence length {seq_len} leaves no room next to the special tokens")
        self._emit, self.prefix, self.suffix = emit, list(prefix), list(suffix)
        self.keep_documents = keep_documents
        self._current: list[int] = []

    def _flush(self) -> None:
        if self._current:
            self._emit(self.prefix + self._current + self.suffix)
            self._current = []

    def add_line(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        if len(self._current) + len(ids) <= self.budget:
            self._current.extend(ids)
            return
        self._flush()
        start = 0
        while len(ids) - start > self.budget:  # a line longer than an example: cut it
            self._emit(self.prefix + list(ids[start:start + self.budget]) + self.suffix)
            start += self.budget
        self._current = list(ids[start:])

    def end_document(self) -> None:
        if self.keep_documents:
            self._flush()

    def finish(self) -> None:
        self._flush()


class StreamPacker:
    MIN_LAST_BLOCK = 2

    def __init__(self, emit: Emit, seq_len: int, end_of_document: int):
        if seq_len < 2:
            raise WorkbenchError(f"sequence length {seq_len} is too short; a causal LM needs at least 2 tokens")
        self._emit, self.seq_len, self.end_of_document = emit, seq_len, end_of_document
        self._buffer: list[int] = []
        self._open = False  # the current document has tokens not yet followed by end_of_document

    def _cut(self) -> None:
        n = self.seq_len
        if len(self._buffer) < n:
            return
        whole = len(self._buffer) // n * n
        for start in range(0, whole, n):
            self._emit(self._buffer[start:start + n])
        self._buffer = self._buffer[whole:]

    def add_line(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        self._buffer.extend(ids)
        self._open = True
        self._cut()

    def end_document(self) -> None:
        if self._open:
            self._buffer.append(self.end_of_document)
            self._open = False
            self._cut()

    def finish(self) -> None:
        self.end_document()
        if len(self._buffer) >= self.MIN_LAST_BLOCK:
            self._emit(self._buffer)
        self._buffer = []


def family_packer(family: str, tokenizer, emit: Emit, seq_len: int, keep_documents: bool = True):
    """The packer for ``family`` with the tokenizer's special ids."""
    def need(name: str) -> int:
        value = getattr(tokenizer, f"{name}_token_id", None)
        if not isinstance(value, int):
            raise WorkbenchError(f"{with_article(family)} dataset needs a tokenizer with a {name} token")
        return value

    if family == "gpt2":
        return StreamPacker(emit, seq_len, need("eos"))
    if family == "bert":
        return LinePacker(emit, seq_len, [need("cls")], [need("sep")], keep_documents)
    if family == "bart":
        return LinePacker(emit, seq_len, [need("bos")], [need("eos")], keep_documents)
    if family == "t5":
        return LinePacker(emit, seq_len, [], [need("eos")], keep_documents)
    if family == "elmo":  # words only: the model puts <S> and </S> around each example itself
        return LinePacker(emit, seq_len, [], [], keep_documents)
    raise WorkbenchError(f"unknown model family {family!r}")


__all__ = ["LinePacker", "StreamPacker", "family_packer"]

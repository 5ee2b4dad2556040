"""Text the user gives us: the one checked reader of text files, and empty-text checks.

Every text file the workbench reads (a typed text's file, a table, a corpus of any view, instructions, CoNLL,
SQuAD, a chat template, a lecture preset, a prompt set) is decoded here, whole (``read_text_file``,
``decode_bytes``) or a line at a time (``TextLines``, for files read with a progress bar), so one rule refuses
what is not text, with one wording:

- bytes that are not UTF-8;
- control bytes (NUL, ESC, DEL, ...: U+0000-U+001F and U+007F other than tab, line feed, carriage return and
  form feed): a binary file (an executable, an archive, a model's weights) can be valid UTF-8 for long
  stretches, but it always holds such bytes, and no text does.

The message names the source, the byte offset (0-based, counted in the file's bytes) and the line (1-based) of
the first bad byte, and the byte itself::

    bin.txt is not UTF-8 text (byte 24, line 1: control byte 0x00, as in a binary file)
    latin.tsv is not UTF-8 text (byte 97, line 3: 0xe9 is not valid UTF-8 there); save it as UTF-8

A UTF-8 byte-order mark at the start of the file is dropped (Excel and Notepad write one).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from lm_workbench.engine.errors import EmptyTextError, TextEncodingError, WorkbenchError

BOM = "\ufeff"
ALLOWED_CONTROLS = "\t\n\r\f"  # the control characters text holds
CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")  # every other C0 control byte, and DEL


def require_text(text: str | None, what: str = "text") -> str:
    if text is None or not text.strip():
        raise EmptyTextError(f"the {what} is empty: type or paste some text first")
    return text


def not_text_error(source: str, offset: int, line: int, byte: int, *, control: bool) -> TextEncodingError:
    """The one refusal of a file that is not text: ``source``, the bad byte's 0-based ``offset`` in the file,
    its 1-based ``line``, and the byte; ``control`` tells a control byte from one that is not UTF-8."""
    if control:
        return TextEncodingError(f"{source} is not UTF-8 text (byte {offset}, line {line}: control byte "
                                 f"0x{byte:02x}, as in a binary file); choose a text file")
    return TextEncodingError(f"{source} is not UTF-8 text (byte {offset}, line {line}: 0x{byte:02x} is not valid "
                             f"UTF-8 there); save it as UTF-8 and try again")


def check_text(data: bytes, source: str, *, offset: int = 0, line: int = 1) -> str:
    """``data`` decoded as UTF-8, after the checks above; ``offset`` and ``line`` say where ``data`` starts in
    its file (for a chunk of a file read a line at a time). A BOM is kept: see ``decode_bytes``.
    Raises ``TextEncodingError`` (a ``WorkbenchError``) at the first bad byte."""
    bad = CONTROL_BYTES.search(data)
    try:
        text = data.decode("utf-8") if bad is None else data[:bad.start()].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start
        raise not_text_error(source, offset + at, line + data.count(b"\n", 0, at), data[at], control=False) from None
    if bad is not None:
        at = bad.start()
        raise not_text_error(source, offset + at, line + data.count(b"\n", 0, at), data[at], control=True)
    return text


def decode_bytes(data: bytes, source: str = "input") -> str:
    """A whole file's bytes as text (``check_text``), a leading BOM dropped."""
    text = check_text(data, source)
    return text[1:] if text.startswith(BOM) else text


def _open(path: Path):
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise WorkbenchError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise WorkbenchError(f"{path} is a folder, not a file") from None
    except OSError as exc:
        raise WorkbenchError(f"cannot read {path}: {exc.strerror}") from None


def read_text_file(path: str | Path) -> str:
    """The whole text of a file (``decode_bytes``); ``WorkbenchError`` for a missing or unreadable file,
    ``TextEncodingError`` for one that is not text."""
    path = Path(path)
    with _open(path) as f:
        data = f.read()
    return decode_bytes(data, source=str(path))


class TextLines:
    """A file's checked lines, one at a time (each with its line ending), counting bytes and lines for progress
    and messages: ``number`` is the line last yielded (1-based), ``bytes_read`` the bytes read so far. A BOM
    before the first line is dropped; the first bad byte stops the read with ``TextEncodingError``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.bytes_read = 0
        self.number = 0

    def __iter__(self) -> Iterator[str]:
        with _open(self.path) as f:
            for raw in f:
                line = check_text(raw, str(self.path), offset=self.bytes_read, line=self.number + 1)
                self.number += 1
                self.bytes_read += len(raw)
                if self.number == 1 and line.startswith(BOM):
                    line = line[1:]
                yield line

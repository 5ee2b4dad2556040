"""Text the user gives us: validation and decoding of files.

Empty text and non-UTF-8 files are refused with a message that says what is
wrong and where (the byte offset of the first bad byte).
"""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.errors import EmptyTextError, TextEncodingError


def require_text(text: str | None, what: str = "text") -> str:
    if text is None or not text.strip():
        raise EmptyTextError(f"the {what} is empty: type or paste some text first")
    return text


def decode_bytes(data: bytes, source: str = "input") -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextEncodingError(
            f"{source} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8 and try again"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text_file(path: str | Path) -> str:
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TextEncodingError(f"text file {path} does not exist") from None
    except OSError as exc:
        raise TextEncodingError(f"cannot read {path}: {exc.strerror}") from None
    return decode_bytes(data, source=str(path))

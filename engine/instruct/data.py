"""Instruction (demonstration) data in the two shapes people publish, read into conversations.

- Alpaca-style: ``{"instruction": ..., "input": ... (optional), "output": ...}``; the user turn is the
  instruction, then a blank line and the input when there is one; the assistant turn is the output.
- chat-style: ``{"messages": [{"role": "system"|"user"|"assistant", "content": ...}, ...]}``; every assistant
  turn is trained.

Either may carry ``"category"`` (a use case: "reverse", "capital", ...); the before/after table and the
validation scores are then also given per category. A file is JSON Lines (one record a line) or one JSON array of
records (the published ``alpaca_data.json``). A record that cannot be used (not JSON, neither shape, no output,
an unknown role, no assistant turn, an empty turn) is skipped and counted in the ``ReadReport`` with its line (a
JSON array: its record number) and the reason; a file with nothing usable is a ``WorkbenchError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.instruct.template import ROLES


@dataclass(frozen=True)
class InstructExample:
    messages: tuple[tuple[str, str], ...]  # (role, content) in order, ending with an assistant turn
    category: str | None = None
    line: int = 0  # where it came from (1-based line, or record number of a JSON array)

    def as_messages(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.messages]

    @property
    def prompt_messages(self) -> list[dict[str, str]]:
        """Everything before the last assistant turn: what a model is asked."""
        last = max(i for i, (role, _) in enumerate(self.messages) if role == "assistant")
        return self.as_messages()[:last]

    @property
    def reference(self) -> str:
        """The last assistant turn: the demonstrated answer."""
        return next(content for role, content in reversed(self.messages) if role == "assistant")

    @property
    def prompt_text(self) -> str:
        """The last user turn (what a table shows as "the prompt")."""
        users = [content for role, content in self.messages[:-1] if role == "user"]
        return users[-1] if users else (self.prompt_messages[-1]["content"] if self.prompt_messages else "")


def record_to_example(record: Any, line: int = 0) -> InstructExample:
    """One parsed record as an example; ``ValueError`` with the reason when it cannot be one."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    category = record.get("category")
    category = str(category).strip() or None if category is not None else None
    if "messages" in record:
        messages = record["messages"]
        if not isinstance(messages, list) or not messages:
            raise ValueError("'messages' is not a non-empty list")
        turns = []
        for message in messages:
            if not isinstance(message, dict) or "role" not in message:
                raise ValueError("a message without a role")
            role, content = str(message["role"]), message.get("content")
            if role not in ROLES:
                raise ValueError(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
            if not isinstance(content, str) or not content.strip():
                raise ValueError(f"an empty {role} turn")
            turns.append((role, content))
        if not any(role == "assistant" for role, _ in turns):
            raise ValueError("no assistant turn (nothing to learn)")
        if turns[0][0] == "assistant":
            raise ValueError("no user or system turn before the first answer")
        return InstructExample(tuple(turns), category, line)
    if "instruction" in record or "output" in record:
        instruction = record.get("instruction")
        output = record.get("output")
        extra = record.get("input") or ""
        if not isinstance(instruction, str) or not instruction.strip():
            raise ValueError("no instruction")
        if not isinstance(output, str) or not output.strip():
            raise ValueError("no output")
        user = instruction if not str(extra).strip() else f"{instruction}\n\n{extra}"
        return InstructExample((("user", user), ("assistant", output)), category, line)
    raise ValueError("neither an Alpaca record (instruction, output) nor a chat record (messages)")


def _records(path: Path) -> list[tuple[int, Any, str | None]]:
    """(line or record number, the parsed record or None, the parse error or None); the file is read by the
    checked reader (a BOM dropped; a binary or non-UTF-8 file refused)."""
    from lm_workbench.engine.text_input import read_text_file

    text = read_text_file(path)
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except ValueError as exc:
            raise WorkbenchError(f"{path}: not a JSON array of records: {exc}") from None
        return [(i + 1, record, None) for i, record in enumerate(records)]
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line), None))
        except ValueError:
            out.append((number, None, "not JSON"))
    return out


class InstructData(list):
    """The examples read (a list) with ``report`` (what was kept and skipped)."""

    def __init__(self, examples=(), report: ReadReport | None = None):
        super().__init__(examples)
        self.report = report

    @property
    def categories(self) -> list[str]:
        return sorted({e.category for e in self if e.category})


def read_instructions(path: str | Path) -> InstructData:
    """Every usable record of ``path`` (see the module); ``WorkbenchError`` when none is."""
    path = Path(path)
    records = _records(path)
    report = ReadReport(str(path), unit="records")
    examples = []
    for line, record, error in records:
        if error is not None:
            report.skip(line, error)
            continue
        try:
            examples.append(record_to_example(record, line))
        except ValueError as exc:
            report.skip(line, str(exc))
    report.rows_read = len(examples)
    report.require_rows("usable instruction records")
    chats = sum(1 for e in examples if len(e.messages) > 2 or e.messages[0][0] != "user")
    if chats:
        report.note(f"{chats} multi-turn or system-prompted conversations (every assistant turn trained)")
    return InstructData(examples, report)

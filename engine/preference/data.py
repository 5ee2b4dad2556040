"""Preference pairs: ``{prompt, chosen, rejected}`` JSON Lines (or any table ``lm_workbench.engine.data.table`` reads).

Each field is a text, or a chat-style list of ``{role, content}`` messages as published sets have them: a
``prompt`` list is the conversation so far (roles system, user, assistant); a ``chosen`` / ``rejected`` list
ends with the assistant's answer, and when ``prompt`` is missing the messages before that answer (the same in
both) are the prompt (UltraFeedback's binarized layout). An optional ``category`` groups the pairs in reports.

Skipped and counted, never dropped silently (``ReadReport``, unit "pairs"): a record missing one of the three
keys or with an empty one, a message with an unknown role or a list that does not end with an assistant
answer, and a pair whose chosen answer equals its rejected one (it teaches nothing: its DPO gradient is 0,
and its loss stays log 2), which the report also names in a note.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.data.tasks import ReadExamples

ROLES = ("system", "user", "assistant")
RECORD_KEYS = ("prompt", "chosen", "rejected", "category")  # the fields a pair is read from
Message = tuple[str, str]  # (role, content)


@dataclass(frozen=True)
class PreferencePair:
    """One prompt with a preferred and a dispreferred answer. ``prompt`` is a text, or a conversation as
    ``(role, content)`` messages; ``category`` is "" when the file has none."""

    prompt: str | tuple[Message, ...]
    chosen: str
    rejected: str
    category: str = ""

    @property
    def prompt_text(self) -> str:
        """The prompt as one line of text (a conversation: its last user message), for tables and reports."""
        if isinstance(self.prompt, str):
            return self.prompt
        users = [content for role, content in self.prompt if role == "user"]
        return users[-1] if users else self.prompt[-1][1]


class _Skip(Exception):
    pass


def _messages(value: object, field: str) -> tuple[Message, ...] | None:
    """A chat-style list as messages; None when ``value`` is not a list (a text)."""
    if isinstance(value, str):
        text = value.strip()
        if not (text.startswith("[") and text.endswith("]")):
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        if not (isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m for m in value)):
            return None
    if not isinstance(value, list):
        return None
    out = []
    for message in value:
        if not isinstance(message, dict) or "role" not in message:
            raise _Skip(f"{field}: a message without a role")
        role = str(message.get("role") or "").strip().lower()
        if role not in ROLES:
            raise _Skip(f"{field}: unknown role {message.get('role')!r} (roles: {', '.join(ROLES)})")
        content = message.get("content")
        out.append((role, "" if content is None else str(content)))
    if not out:
        raise _Skip(f"empty {field}")
    return tuple(out)


def _answer(value: object, field: str) -> tuple[str, tuple[Message, ...]]:
    """(the answer text, the messages before it) of a ``chosen``/``rejected`` value."""
    messages = _messages(value, field)
    if messages is None:
        text = "" if value is None else str(value)
        if not text.strip():
            raise _Skip(f"empty {field}")
        return text, ()
    if messages[-1][0] != "assistant":
        raise _Skip(f"{field}: the last message is a {messages[-1][0]} message, not the assistant's answer")
    if not messages[-1][1].strip():
        raise _Skip(f"empty {field}")
    return messages[-1][1], messages[:-1]


def pair_from_record(record: dict) -> PreferencePair:
    """A pair from one record (a JSON object, or a table row's cells); raises ``_Skip`` with the reason."""
    missing = [key for key in ("chosen", "rejected") if record.get(key) is None]
    if missing:
        raise _Skip(f"no {' or '.join(repr(k) for k in missing)}")
    chosen, chosen_context = _answer(record["chosen"], "chosen")
    rejected, rejected_context = _answer(record["rejected"], "rejected")
    raw_prompt = record.get("prompt")
    if raw_prompt is None or (isinstance(raw_prompt, str) and not raw_prompt.strip()):
        if not chosen_context or chosen_context != rejected_context:
            raise _Skip("no 'prompt'" if raw_prompt is None else "empty prompt")
        prompt: str | tuple[Message, ...] = chosen_context
    else:
        messages = _messages(raw_prompt, "prompt")
        prompt = messages if messages is not None else str(raw_prompt)
    if chosen == rejected:
        raise _Skip("chosen equals rejected")
    category = record.get("category")
    return PreferencePair(prompt, chosen, rejected, "" if category is None else str(category).strip())


def read_preference(path: str | Path, *, tsv_quoting: str = "auto") -> ReadExamples:
    """The pairs of ``path`` with their ``report`` (``tsv_quoting``: how a TSV file's quotes are read; column
    names matched without regard to case); ``WorkbenchError`` for a file with none."""
    from lm_workbench.engine.data.table import read_table

    table = read_table(path, tsv_quoting=tsv_quoting)
    columns = {key: table.find_column(key) for key in RECORD_KEYS}
    table.report.unit = "pairs"
    pairs = ReadExamples(report=table.report)
    identical = 0
    for row in table.rows:
        try:
            pairs.append(pair_from_record({key: row.get(name) for key, name in columns.items()
                                           if name is not None and row.get(name) is not None}))
        except _Skip as skip:
            reason = str(skip)
            identical += reason == "chosen equals rejected"
            table.report.skip(row.line, reason)
    table.keep(pairs)
    if identical:
        table.report.note(f"{identical:,} pair{'s' if identical != 1 else ''} skipped because the chosen answer "
                          "equals the rejected one (nothing to prefer)")
    table.report.require_rows("preference pairs (records with prompt, chosen and rejected)")
    return pairs


def categories(pairs: list[PreferencePair]) -> list[str]:
    """The categories the pairs name, sorted ("" left out)."""
    return sorted({p.category for p in pairs if p.category})


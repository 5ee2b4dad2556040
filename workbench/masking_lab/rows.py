"""The lab's rows: what the preview grid draws and the CSV export writes, built from a job's result.

An aligned objective (mlm, spanbert, clm) gives one band whose rows share
columns: the original tokens, the corrupted input, the labels (``ignored``
where -100) and, when the model can reconstruct, its top-1 prediction at each
scored position. A sequence-to-sequence objective (bart, t5-span) gives one
band per row, each as long as it is: the original (its ``original_kinds``
show deletions and moves), the input (each cell linked to the original
position it came from), the decoder's target and the model's greedy output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

IGNORED = "ignored"  # a label of -100: not scored
HIT, MISS = "hit", "miss"  # the model's prediction equals / differs from the truth
_SENTINEL = re.compile(r"^<extra_id_\d+>$|^<sentinel_\d+>$")


@dataclass
class Cell:
    text: str
    id: int | None
    kind: str
    tip: str
    link: int = -1  # the original position this cell came from (input cells)


@dataclass
class Row:
    name: str  # original, input, labels, target, model
    title: str
    cells: list[Cell] = field(default_factory=list)

    def tokens(self) -> list[str]:
        return [c.text for c in self.cells]

    def ids(self) -> list[int | None]:
        return [c.id for c in self.cells]

    def kinds(self) -> list[str]:
        return [c.kind for c in self.cells]


def _tip(token: str, id_: int | None, kind: str, extra: str = "") -> str:
    head = f"{token!r}" + (f" · id {id_}" if id_ is not None else "")
    return f"{head}\nkind: {kind}" + (f"\n{extra}" if extra else "")


def _label_text(label: int, token: str | None) -> str:
    return f"{token} ({label})" if token is not None else "-100 (not scored)"


def build_rows(result: dict[str, Any]) -> list[list[Row]]:
    """Bands of rows (rows of one band share columns) for a result of the lab's ``jobs.corrupt``."""
    p = result["preview"]
    tokens, input_tokens, label_tokens = result["tokens"], result["input_tokens"], result["label_tokens"]
    original = Row("original", "original")
    for j, (tok, id_, kind) in enumerate(zip(tokens, p.original, p.original_kinds)):
        original.cells.append(Cell(tok, int(id_), kind.value, _tip(tok, int(id_), kind.value, f"original position {j}")))
    inputs = Row("input", "input")
    origin = list(p.origin) if p.origin else [-1] * len(p.input_ids)
    for i, (tok, id_, kind) in enumerate(zip(input_tokens, p.input_ids, p.kinds)):
        src = origin[i] if i < len(origin) else -1
        where = f"from original position {src}" if src >= 0 else "no original position"
        extra = f"input position {i} · {where}"
        if p.labels_aligned and i < len(p.labels):
            extra += f"\nlabel: {_label_text(int(p.labels[i]), label_tokens[i])}"
        inputs.cells.append(Cell(tok, int(id_), kind.value, _tip(tok, int(id_), kind.value, extra), link=src))
    preds = result.get("predictions")
    if p.labels_aligned:
        labels = Row("labels", "labels")
        for i, (label, tok) in enumerate(zip(p.labels, label_tokens)):
            label = int(label)
            kind = IGNORED if tok is None else p.kinds[i].value
            labels.cells.append(Cell("—" if tok is None else tok, None if tok is None else label, kind,
                                     _tip("-100" if tok is None else tok, label, kind, "not scored" if tok is None
                                          else f"scored at input position {i}")))
        band = [original, inputs, labels] if len(original.cells) == len(inputs.cells) else None
        rows = band if band is not None else [inputs, labels]
        if preds and preds.get("kind") == "mlm":
            rows.append(_mlm_row(preds, p, label_tokens))
        return [rows] if band is not None else [[original], rows]
    target = Row("target", "target")
    for k, (label, tok) in enumerate(zip(p.labels, label_tokens)):
        label = int(label)
        if tok is None:
            kind = IGNORED
        else:
            kind = "sentinel" if _SENTINEL.match(tok) else "unchanged"
        target.cells.append(Cell("—" if tok is None else tok, None if tok is None else label, kind,
                                 _tip(tok or "-100", label, kind, f"target position {k}")))
    bands = [[original], [inputs], [target]]
    if preds and preds.get("kind") == "seq2seq":
        bands.append([_seq2seq_row(preds, p)])
    return bands


def _mlm_row(preds: dict[str, Any], p: Any, label_tokens: list[str | None]) -> Row:
    row = Row("model", "model")
    by_pos = {pos: (id_, tok, prob) for pos, id_, tok, prob in
              zip(preds["positions"], preds["ids"], preds["tokens"], preds["probs"])}
    for i in range(len(p.input_ids)):
        if i not in by_pos:
            row.cells.append(Cell("", None, IGNORED, "not scored: no prediction shown"))
            continue
        id_, tok, prob = by_pos[i]
        kind = HIT if id_ == int(p.labels[i]) else MISS
        tip = _tip(tok, id_, kind, f"top-1 p = {prob:.4f} · truth {label_tokens[i]!r}")
        row.cells.append(Cell(tok, id_, kind, tip))
    return row


def _seq2seq_row(preds: dict[str, Any], p: Any) -> Row:
    row = Row("model", "model")
    target = [int(t) for t in p.labels]
    for k, (id_, tok, prob) in enumerate(zip(preds["ids"], preds["tokens"], preds["probs"])):
        kind = HIT if k < len(target) and target[k] == id_ else MISS
        row.cells.append(Cell(tok, id_, kind, _tip(tok, id_, kind, f"greedy step {k} · p = {prob:.4f}")))
    return row


def rows_table(bands: list[list[Row]]) -> tuple[list[str], list[list[Any]]]:
    """Every cell as a CSV row: row, position, token, id, kind, origin."""
    header = ["row", "position", "token", "id", "kind", "origin"]
    out: list[list[Any]] = []
    for band in bands:
        for row in band:
            for i, c in enumerate(row.cells):
                out.append([row.name, i, c.text, "" if c.id is None else c.id, c.kind,
                            c.link if row.name == "input" and c.link >= 0 else ""])
    return header, out

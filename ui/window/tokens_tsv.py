"""Edit > Copy tokens as TSV: the text box's tokens as a tab-separated table (index, token, id, span, the text
it covers, word, segment, special)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lm_workbench.export import table_to_tsv

if TYPE_CHECKING:
    from lm_workbench.engine.tokens import TokenizedText

TSV_HEADER = ["index", "token", "id", "start", "end", "text", "word", "segment", "special"]


def tokens_tsv(tt: TokenizedText) -> str:
    rows = []
    for i in range(len(tt)):
        start, end = tt.offsets[i]
        source = (tt.pair or "") if tt.segments[i] == 1 else tt.text
        covered = "" if tt.special[i] else source[start:end]
        word = "" if tt.word_ids[i] is None else tt.word_ids[i]
        segment = "" if tt.segments[i] is None else tt.segments[i]
        rows.append([i, tt.tokens[i], tt.ids[i], start, end, covered, word, segment, int(tt.special[i])])
    return table_to_tsv(TSV_HEADER, rows)

"""A BEIR folder, in the shape BEIR publishes its data sets:

    corpus.jsonl        {"_id": ..., "title": ..., "text": ...} per line
    queries.jsonl       {"_id": ..., "text": ...} per line (all splits' queries)
    qrels/<split>.tsv   query-id<TAB>corpus-id<TAB>score, with that header line

A document is ``title + " " + text`` (stripped), as BEIR's dense models read it. Relevance is the qrels score:
1 for binary judgements, 0..n for graded ones (a score of 0 is judged not relevant). A missing file is one
line naming it (and the splits there are); a qrels line naming a query or a document the folder does not
have, or with a score that is not an integer, is skipped and counted; a query whose judgements name no
relevant document is left out of the averages and counted (no ranking can be scored against nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.retrieval.corpus import Corpus, read_corpus
from lm_workbench.engine.text_input import TextLines


@dataclass
class BeirData:
    corpus: Corpus
    query_ids: list[str]  # the split's judged queries with a relevant document, in queries.jsonl order
    query_texts: list[str]
    qrels: dict[str, dict[str, int]]  # query id -> {document id: grade}
    split: str
    notes: list[str] = field(default_factory=list)  # what was skipped, counted, in one line each
    qrels_report: ReadReport | None = None

    @property
    def graded(self) -> bool:
        return any(g > 1 for rel in self.qrels.values() for g in rel.values())


def splits(folder: str | Path) -> list[str]:
    qrels = Path(folder) / "qrels"
    return sorted(p.stem for p in qrels.glob("*.tsv")) if qrels.is_dir() else []


def _need(path: Path, folder: Path, what: str) -> None:
    if not path.is_file():
        raise WorkbenchError(f"the BEIR folder {folder} has no {path.relative_to(folder).as_posix()} ({what})")


def read_queries(path: Path) -> tuple[list[str], dict[str, str], ReadReport]:
    from lm_workbench.engine.data.table import read_table

    table = read_table(path)
    id_col, text_col = table.column("_id", "the query's id"), table.column("text", "the query")
    ids, texts = [], {}
    for row in table.rows:
        qid, text = (row.get(id_col) or "").strip(), (row.get(text_col) or "").strip()
        if not qid or not text:
            table.report.skip(row.line, "empty query id or text")
        elif qid in texts:
            table.report.skip(row.line, f"query {qid!r} seen before")
        else:
            ids.append(qid)
            texts[qid] = text
    table.report.rows_read = len(ids)
    table.report.unit = "queries"
    return ids, texts, table.report


def read_qrels(path: Path) -> tuple[list[tuple[int, str, str, int]], ReadReport]:
    """(line, query id, document id, grade) for each readable line of a qrels TSV (header required)."""
    report = ReadReport(str(path), unit="judgements")
    rows = []
    lines = TextLines(path)  # the checked reader: a binary or non-UTF-8 file is refused; a BOM is dropped
    header: list[str] | None = None
    for line in lines:
        n = lines.number
        if header is None:  # the first line, blank or not
            header = line.rstrip("\r\n").split("\t")
            if [h.strip().lower() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
                raise WorkbenchError(f"{path}, line 1: the header must be query-id, corpus-id, score (BEIR's "
                                     f"qrels), not {', '.join(header)}")
            continue
        if not line.strip():
            continue
        cells = line.rstrip("\r\n").split("\t")
        if len(cells) < 3:
            report.skip(n, f"{len(cells)} columns, the header has 3")
            continue
        try:
            grade = int(float(cells[2]))
        except ValueError:
            report.skip(n, f"score {cells[2]!r} is not a number")
            continue
        rows.append((n, cells[0].strip(), cells[1].strip(), grade))
    if header is None:
        raise WorkbenchError(f"{path} is empty: the header must be query-id, corpus-id, score (BEIR's qrels)")
    return rows, report


def read_beir(folder: str | Path, split: str = "test") -> BeirData:
    """The corpus, the split's judged queries and their qrels (see the module docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise WorkbenchError(f"no such BEIR folder: {folder}")
    _need(folder / "corpus.jsonl", folder, "the documents")
    _need(folder / "queries.jsonl", folder, "the queries")
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        found = splits(folder)
        there = f"; splits there: {', '.join(found)}" if found else "; it has no qrels/*.tsv"
        raise WorkbenchError(f"the BEIR folder {folder} has no qrels/{split}.tsv (the relevance judgements){there}")
    corpus = read_corpus(folder / "corpus.jsonl")
    query_order, query_text, query_report = read_queries(folder / "queries.jsonl")
    rows, report = read_qrels(qrels_path)
    known_docs = set(corpus.ids)
    qrels: dict[str, dict[str, int]] = {}
    unknown_q = unknown_d = 0
    for line, qid, did, grade in rows:
        if qid not in query_text:
            unknown_q += 1
            report.skip(line, f"query {qid!r} is not in queries.jsonl")
        elif did not in known_docs:
            unknown_d += 1
            report.skip(line, f"document {did!r} is not in corpus.jsonl")
        else:
            qrels.setdefault(qid, {})[did] = grade
    report.rows_read = sum(len(r) for r in qrels.values())
    notes = []
    if corpus.report.rows_skipped:
        notes.append(f"corpus.jsonl: {corpus.report.summary()}")
    if query_report.rows_skipped:
        notes.append(f"queries.jsonl: {query_report.summary()}")
    if unknown_q:
        notes.append(f"qrels/{split}.tsv: {unknown_q} judgement(s) name a query not in queries.jsonl, skipped")
    if unknown_d:
        notes.append(f"qrels/{split}.tsv: {unknown_d} judgement(s) name a document not in corpus.jsonl, skipped")
    other = report.rows_skipped - unknown_q - unknown_d
    if other:
        notes.append(f"qrels/{split}.tsv: {other} line(s) could not be read, skipped")
    no_relevant = [q for q, rel in qrels.items() if not any(g > 0 for g in rel.values())]
    for q in no_relevant:
        del qrels[q]
    if no_relevant:
        notes.append(f"{len(no_relevant)} query(ies) with no relevant document judged, left out")
    ids = [q for q in query_order if q in qrels]
    if not ids:
        raise WorkbenchError(f"qrels/{split}.tsv in {folder} judges no query of queries.jsonl relevant to a document "
                             "of corpus.jsonl: nothing to evaluate" + (f" ({'; '.join(notes)})" if notes else ""))
    return BeirData(corpus, ids, [query_text[q] for q in ids], qrels, split, notes, report)

"""TSV files as other tools write them (issue 42, kind 5): pandas, Python's csv module (QUOTE_MINIMAL, QUOTE_ALL)
and GLUE's unquoted style read back as each writer meant, with the auto decision the docs state for each.

The oracle is each writer itself (pandas' own ``read_csv`` for pandas, the cells handed to the writer for the
csv module and for GLUE's style) and the documented evidence, restated here at the level of the whole file:
a csv writer's file reads as csv when its header is quoted, when one of its lines holds a field in quoted form
with doubled quotes, or when some line does not have the header's number of tab-separated cells; else it reads
literally (the same cells when no field needed quotes)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lm_workbench.engine.data.table import read_table
from lm_workbench.engine.errors import WorkbenchError

pd = pytest.importorskip("pandas")

PROFILE = settings(derandomize=True, deadline=None, max_examples=20,
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
COLUMNS = ["text", "label", "note"]
DOUBLED_FORM = re.compile(r'"([^"]|"")*""([^"]|"")*"')  # the docs' "field in quoted form with doubled quotes"

# cells as the field has them: letters with quotes, commas, tabs and line breaks among them (never blank)
csv_cells = st.tuples(st.text(alphabet='ab é"\',\t\n', max_size=8), st.sampled_from("xyz"),
                      st.text(alphabet='ab "\t\n,', max_size=4)).map(lambda t: t[0] + t[1] + t[2])
glue_cells = st.tuples(st.text(alphabet='ab "\',.', max_size=10), st.sampled_from("xyz"),
                       st.text(alphabet='ab "\',.', max_size=4)).map(lambda t: t[0] + t[1] + t[2])


def tables(cells):
    """(number of columns, rows): 1-3 columns, 1-4 rows."""
    return st.integers(1, 3).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.lists(cells, min_size=n, max_size=n), min_size=1, max_size=4)))


def read_back(path, quoting="auto"):
    table = read_table(path, tsv_quoting=quoting)
    return [[row.cells[name] for name in table.header] for row in table.rows], table


def convention(table) -> str:
    return table.report.quoting.split()[2]  # "TSV quoting: csv (...)"


def expected_convention(text: str, columns: int) -> str:
    """The documented decision, restated over the whole file as written."""
    lines = text.split("\n")
    header = lines[0].split("\t")
    if any(h.startswith('"') for h in header):
        return "csv"
    if any(DOUBLED_FORM.fullmatch(f) for line in lines[1:] for f in line.split("\t")):
        return "csv"
    if any(len(line.split("\t")) != columns for line in lines[1:] if line.strip()):
        return "csv"
    return "literal"


def literal_cells(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.split("\n")[1:] if line.strip()]


def needs_quotes(rows) -> bool:
    return any(ch in cell for row in rows for cell in row for ch in '"\t\n\r')


@PROFILE
@given(tables(csv_cells))
def test_pandas_files_read_back_as_pandas_reads_them(tmp_path, table):
    n, rows = table
    path = tmp_path / "pandas.tsv"
    pd.DataFrame(rows, columns=COLUMNS[:n]).to_csv(path, sep="\t", index=False)
    meant = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False).values.tolist()
    assert meant == rows  # pandas reads its own file back as the rows it was given
    got, read = read_back(path)
    text = path.read_text(encoding="utf-8")
    assert convention(read) == expected_convention(text, n)
    if convention(read) == "csv":
        assert got == meant
    else:  # no evidence: the lines as they are, which are the rows whenever no field needed quotes
        assert got == literal_cells(text)
        assert got == meant or needs_quotes(rows)
    assert read_back(path, "csv")[0] == meant  # forced, always the writer's rows


@PROFILE
@given(tables(csv_cells), st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
def test_csv_module_files_read_back_as_written(tmp_path, table, quoting):
    n, rows = table
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", quoting=quoting, lineterminator="\n")
    writer.writerows([COLUMNS[:n], *rows])
    path = tmp_path / "module.tsv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    got, read = read_back(path)
    expected = expected_convention(buffer.getvalue(), n)
    assert convention(read) == expected
    if quoting == csv.QUOTE_ALL:
        assert expected == "csv" and got == rows  # its header is quoted: always csv, always the rows
    elif expected == "csv":
        assert got == rows
    else:
        assert got == literal_cells(buffer.getvalue()) and (got == rows or needs_quotes(rows))


@PROFILE
@given(tables(glue_cells))
def test_glue_style_files_keep_their_quotes_as_text(tmp_path, table):
    n, rows = table
    text = "\t".join(COLUMNS[:n]) + "\n" + "".join("\t".join(row) + "\n" for row in rows)
    path = tmp_path / "glue.tsv"
    path.write_text(text, encoding="utf-8")
    got, read = read_back(path)
    if any(DOUBLED_FORM.fullmatch(cell) for row in rows for cell in row):
        assert convention(read) == "csv"  # the documented limit: a cell in csv's quoted form is evidence
    else:
        assert convention(read) == "literal" and got == rows
    assert read_back(path, "literal")[0] == rows  # forced, always GLUE's rows


def test_the_reported_pandas_file_reads_the_sentence_unquoted(tmp_path):
    """The issue's example: ``DataFrame.to_csv(sep="\\t")`` (pandas' index column included) with the sentence
    ``She said "wow" at the view.`` as one row."""
    from lm_workbench.engine.data.tasks import read_classification

    path = tmp_path / "p.tsv"
    frame = pd.DataFrame({"sentence": ['She said "wow" at the view.', "The room was dull."],
                          "label": ["positive", "negative"]})
    frame.to_csv(path, sep="\t")
    assert '\t"She said ""wow"" at the view."\t' in path.read_text(encoding="utf-8")
    data = read_classification(path)
    meant = pd.read_csv(path, sep="\t")["sentence"].tolist()  # pandas reading its own file
    assert [e.text for e in data.examples] == frame["sentence"].tolist() == meant
    summary = data.report.summary()
    assert summary.startswith("read 2 rows, skipped 0; TSV quoting: csv (line 2: a quoted field with doubled quotes")
    assert "index column pandas writes" in summary
    literal = read_classification(path, tsv_quoting="literal")
    assert literal.examples[0].text == '"She said ""wow"" at the view."'
    assert "TSV quoting: literal (as chosen)" in literal.report.summary()


@pytest.mark.parametrize("lines, convention_, why", [
    (['sentence\tlabel', '"Yes," she said.\t1', 'He said "no" twice.\t0', '"Hello."\t1'], "literal", "no field"),
    (['sentence\tlabel', '"Yes," she said.\t1', '"a ""b"" c"\t0'], "csv", "line 3: a quoted field with doubled"),
    (['"sentence"\t"label"', '"a"\t"1"'], "csv", "line 1: the header's names are quoted"),
    (['sentence\tlabel', '"a\tb"\t1'], "csv", "line 2: a quoted field holding a tab"),
    (['sentence\tlabel', '"first', 'second"\t1'], "csv", "lines 2-3: a quoted field holding a line break"),
    (['sentence', '"opens here', 'and closes here"'], "literal", "no field"),  # one column: reads whole both ways
])
def test_the_auto_decision_and_its_evidence(tmp_path, lines, convention_, why):
    path = tmp_path / "t.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, table = read_back(path)
    assert convention(table) == convention_ and why in table.report.quoting
    assert table.report.as_json()["tsv_quoting"] == table.report.quoting


def test_csv_quoting_skips_a_row_that_breaks_it_and_refuses_a_quote_that_never_closes(tmp_path):
    path = tmp_path / "mixed.tsv"
    path.write_text('sentence\tlabel\n"a ""b"" c"\t0\n"Yes," she said.\t1\nok\t1\n', encoding="utf-8")
    got, table = read_back(path)
    assert got == [['a "b" c', "0"], ["ok", "1"]]
    assert table.report.rows_skipped == 1 and table.report.skipped[0].line == 3
    assert "do not follow csv quoting" in table.report.skipped[0].reason
    path.write_text('sentence\tlabel\n"a ""b"" c"\t0\n"never closes\t1\nok\t1\n', encoding="utf-8")
    with pytest.raises(WorkbenchError, match=r"mixed\.tsv, line 3: a quoted field opens and never closes"):
        read_table(path)


def test_a_bad_choice_is_one_line(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="--tsv-quoting must be auto, literal or csv, not 'quoted'"):
        read_table(path, tsv_quoting="quoted")

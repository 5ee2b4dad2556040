"""Published files through the commands: the JSON says how many rows were read, skipped and scored, and the
same task in two formats gives the same result."""

from __future__ import annotations

import json

from lm_workbench.engine.probing.demo import POS_DEMO
from tests.data.published_shapes import STSB_PAIRS, stsb_dev
from lm_workbench.cli.main import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sts_on_stsb_as_published_counts_every_pair(tmp_path, capsys, fresh_home):
    path = tmp_path / "sts-dev.tsv"
    path.write_text(stsb_dev(), encoding="utf-8")
    code, out, err = run_cli(capsys, "sts", "minilm", "--data", str(path), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["rows_read"], report["rows_skipped"], report["rows_scored"]) == (8, 0, 8)
    assert report["pairs"] == len(STSB_PAIRS) and report["skipped"] == []

    broken = stsb_dev().splitlines(keepends=True)
    broken[2] = broken[2].replace("\t1.200", "\tn/a")  # line 3: a score that is not a number
    path.write_text("".join(broken), encoding="utf-8")
    code, out, err = run_cli(capsys, "sts", "minilm", "--data", str(path), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["rows_read"], report["rows_skipped"], report["rows_scored"]) == (7, 1, 7)
    assert report["skipped"] == [{"line": 3, "reason": "the score 'n/a' is not a number"}]
    assert "note: sts-dev.tsv: read 7 rows, skipped 1 (first: line 3: the score 'n/a' is not a number)" in err


def _as_conll2003(conllu: str) -> str:
    """The demo's CoNLL-U sentences rewritten as CoNLL-2003 (word POS chunk NER, -DOCSTART- first)."""
    sentences = []
    for block in conllu.strip().split("\n\n"):
        rows = [line.split("\t") for line in block.splitlines() if line and not line.startswith("#")]
        rows = [r for r in rows if r[0].isdigit()]
        sentences.append("".join(f"{r[1]} {r[3]} O O\n" for r in rows))
    return "-DOCSTART- -X- -X- O\n\n" + "\n".join(sentences)


def test_a_probe_reads_the_same_task_from_conll2003_and_conllu(tmp_path, capsys, fresh_home, tiny_models):
    blocks = POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:40]
    conllu = tmp_path / "pos.conllu"
    conllu.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    conll = tmp_path / "pos.conll"
    conll.write_text(_as_conll2003("\n\n".join(blocks)), encoding="utf-8")
    model = str(tiny_models["bert"])
    results = []
    for path, extra in ((conllu, []), (conll, ["--tag-column", "2"])):
        code, out, err = run_cli(capsys, "probe", model, "--task", str(path), "--kind", "token", *extra, "--json")
        assert code == 0, err
        results.append(json.loads(out))
    from_conllu, from_conll = results
    assert from_conll["rows_read"] == from_conllu["rows_read"] == 40
    assert from_conll["notes"] == ["passed over 1 -DOCSTART- line(s)"]
    assert from_conll["accuracy"] == from_conllu["accuracy"] and from_conll["rows_scored"] == from_conllu["test_size"]

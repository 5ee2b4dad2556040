"""A file deleted under a running job: the job ends with one line naming the file and what to do (exit 1: the
file was there when the run started, so this is the machine's fault, not bad input), and what it had saved stays."""

from __future__ import annotations

import lm_workbench.pretrain.train as pretrain_run
from tests.support.pretrain_corpus import write_corpus
from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore


def test_a_corpus_deleted_while_pretraining_ends_the_run_in_one_line(fresh_home, tmp_path, monkeypatch, capsys):
    corpus = write_corpus(tmp_path / "corpus.txt", n_documents=60)
    out = tmp_path / "out"
    real = pretrain_run._dataset

    def delete_then_pack(*args, **kwargs):  # the tokenizer is trained; now someone deletes the corpus
        corpus.unlink()
        return real(*args, **kwargs)

    monkeypatch.setattr(pretrain_run, "_dataset", delete_then_pack)
    code = main(["pretrain", "--family", "gpt2", "--objective", "clm", "--corpus", str(corpus), "--out", str(out),
                 "--hidden", "64", "--layers", "2", "--seq-len", "64", "--vocab-size", "400", "--steps", "4",
                 "--batch-size", "8", "--device", "cpu", "--train", "threads=1"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    line = err.strip().splitlines()[-1].removeprefix("lm-workbench: error: ")
    assert line.startswith(f"{corpus} does not exist (was it moved or deleted?): put it back")
    assert "nothing was saved to resume from" in line and "(details in " in line
    assert (out / "tokenizer" / "tokenizer.json").is_file()  # what the run had made is kept
    with RunStore(runs_db_path()) as store:
        (run,) = store.list_runs()
    assert run["status"] == "failed" and run["error"] == line.split(" (details in ")[0]

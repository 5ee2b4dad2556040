"""Window actions that meet a fault of the machine show one line that says what happened and where the
traceback is (the log file), never "Unexpected error" with an exception's name."""

from __future__ import annotations

import errno
import os
import sqlite3

from lm_workbench.logs import setup_logging, stop_logging


def _enospc(tmp_path):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "export.png"))


def _read_only(tmp_path):
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "locked"))


def _gone(tmp_path):
    (tmp_path / "text.txt").read_text(encoding="utf-8")


def _damaged_database(tmp_path):
    (tmp_path / "runs.sqlite3").write_bytes(b"not a database" * 100)
    sqlite3.connect(tmp_path / "runs.sqlite3").execute("SELECT * FROM runs")


def _damaged_weights(tmp_path):
    from safetensors.torch import load_file

    (tmp_path / "model.safetensors").write_bytes(b"garbage" * 100)
    load_file(str(tmp_path / "model.safetensors"))


def _damaged_tokenizer(tmp_path):
    from transformers import PreTrainedTokenizerFast

    (tmp_path / "tokenizer.json").write_text("{bad", encoding="utf-8")
    PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))


CASES = [
    (_enospc, "no space left on the disk for {tmp}/export.png: free some space"),
    (_read_only, "permission denied for {tmp}/locked: choose a folder you can write to"),
    (_gone, "{tmp}/text.txt does not exist (was it moved or deleted?)"),
    (_damaged_database, "the run store "),
    (_damaged_weights, "a weights file could not be read: it is damaged or in another format (Error while "
                       "deserializing header"),
    (_damaged_tokenizer, "a tokenizer file could not be read: it is damaged or in another format"),
]


def test_jobs_that_meet_a_fault_show_one_line_and_the_log(fresh_home, open_window, qtbot, tmp_path):
    log = setup_logging()
    try:
        window = open_window(size=(900, 600), about=False)
        for job, expected in CASES:
            window.message_bar.dismiss()
            window.jobs.run(lambda cancel, job=job: job(tmp_path), name="export", on_done=lambda value: None)
            qtbot.waitUntil(lambda: window.message_bar.level() == "error", timeout=10000)
            text = window.message_bar.text()
            assert text.startswith(expected.format(tmp=tmp_path)), text
            assert text.endswith(f"(details in {log})") and "\n" not in text and "Unexpected" not in text
        assert log.read_text(encoding="utf-8").count("Traceback") >= len(CASES)  # the details, where it says
        window.jobs.run(lambda cancel: {}["missing"], name="tokenize", on_done=lambda value: None)
        qtbot.waitUntil(lambda: "KeyError" in window.message_bar.text(), timeout=10000)
        assert window.message_bar.text() == f"Unexpected error: KeyError: 'missing' (details in {log})"  # a bug
    finally:
        stop_logging()

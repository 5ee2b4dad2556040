"""The window's file readers (issue 49, item 1; issue 42, kind 5): a binary file chosen as Heads' ablation corpus,
the Embeddings corpus or the Retrieval corpus is refused with the checked reader's one line in the view (no map,
no "mean over N corpus tokens"); a TSV written by pandas is read as pandas meant and the view says how it was
read."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
ELF = (b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x03\x00>\x00\x01\x00\x00\x00") * 100  # an executable's bytes
REFUSAL = "bin.txt is not UTF-8 text (byte 0, line 1: control byte 0x7f"


def test_heads_refuses_a_binary_ablation_corpus(open_window, qtbot, tmp_path, tiny_models):
    path = tmp_path / "bin.txt"
    path.write_bytes(ELF)
    window = open_window(str(tiny_models["gpt2"]), "heads")
    view = window.view("heads")
    view.set_inputs(how="mean", corpus=str(path))
    window.text_input.set_text("The cat sat on the")
    qtbot.waitUntil(lambda: view.state.dla is not None, timeout=WAIT)  # the split first: its result shows too
    view.sweep_button.click()
    qtbot.waitUntil(lambda: not view.state.running and REFUSAL in view.notice.text(), timeout=WAIT)
    assert view.state.sweep is None and view.sweep_map.matrix() is None and view.sweep_button.isEnabled()


def test_embeddings_refuses_a_binary_corpus_and_says_how_a_pandas_tsv_was_read(open_window, qtbot, tmp_path):
    pd = pytest.importorskip("pandas")
    window = open_window(None, "embeddings")
    view = window.view("embeddings")
    path = tmp_path / "bin.txt"
    path.write_bytes(ELF)
    view.corpus_panel.open_file(path)
    qtbot.waitUntil(lambda: REFUSAL in view.notice.text(), timeout=WAIT)
    tsv = tmp_path / "said.tsv"
    pd.DataFrame({"sentence": ['She said "wow" at the view.', "The room was dull."]}).to_csv(tsv, sep="\t")
    view.corpus_panel.open_file(tsv)
    qtbot.waitUntil(lambda: "TSV quoting: csv" in view.corpus_panel.summary.text(), timeout=WAIT)
    assert view.state.corpus.lines == ['She said "wow" at the view.', "The room was dull."]


def test_retrieval_refuses_a_binary_corpus_and_says_how_a_pandas_tsv_was_read(open_window, qtbot, tmp_path):
    pd = pytest.importorskip("pandas")
    window = open_window(None, "retrieval")
    view = window.view("retrieval")
    path = tmp_path / "bin.txt"
    path.write_bytes(ELF)
    view.load_corpus(str(path))
    qtbot.waitUntil(lambda: REFUSAL in view.summary.text() and REFUSAL in window.message_bar.text(), timeout=WAIT)
    tsv = tmp_path / "said.tsv"
    pd.DataFrame({"text": ['She said "wow" at the view.', "The room was dull."]}).to_csv(tsv, sep="\t", index=False)
    view.load_corpus(str(tsv))
    qtbot.waitUntil(lambda: view.state.corpus is not None and "TSV quoting: csv" in view.summary.text(), timeout=WAIT)
    assert view.state.corpus.texts == ['She said "wow" at the view.', "The room was dull."]

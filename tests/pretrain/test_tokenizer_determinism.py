"""Course-model tokenizers train deterministically (issue 48): the same corpus gives the same tokenizer file in
two separate processes for every family (the Rust WordPiece and Unigram trainers broke ties in per-process hash
order), and our WordPiece trainer is tokenizers' algorithm with a fixed tie order, checked by hand."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from lm_workbench.engine.pretrain.wordpiece_trainer import learn_wordpiece_vocabulary

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

TRAIN = textwrap.dedent("""
    import hashlib, sys, tempfile
    from pathlib import Path
    from pydoc_data.topics import topics
    from lm_workbench.engine.pretrain.tokenizer_training import train_tokenizer
    texts = [l for v in list(topics.values())[:25] for l in v.splitlines() if l.strip()]
    for family in sys.argv[1:]:
        out = Path(tempfile.mkdtemp())
        train_tokenizer(family, texts, out, vocab_size=600, num_sentinels=4)
        print(family, hashlib.sha256((out / "tokenizer.json").read_bytes()).hexdigest())
""")


def _train_in_two_processes() -> list[dict[str, str]]:
    """{family: sha256 of tokenizer.json} from two processes run side by side (different hash seeds)."""
    import os

    runs = [subprocess.Popen([sys.executable, "-c", TRAIN, "bert", "gpt2", "bart", "t5", "elmo"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed, "OMP_NUM_THREADS": "1"})
            for seed in ("1", "2")]
    found = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-2000:]
        found.append(dict(line.split() for line in out.split("\n") if line.strip()))
    return found


@pytest.mark.slow
def test_two_processes_train_identical_tokenizers_for_every_family():
    first, second = _train_in_two_processes()
    assert set(first) == {"bert", "gpt2", "bart", "t5", "elmo"}
    assert first == second


def test_wordpiece_merges_the_most_frequent_pair_first_worked_by_hand():
    """hug 10, pug 5, pun 12, bun 4, hugs 5: pairs ##u ##g 20 > p ##u 17 > ##u ##n 16 > h ##u 15, so ##ug first;
    then ##u ##n 16 (p ##u fell to 12), then h ##ug 15."""
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    alphabet = ["b", "g", "h", "n", "p", "s", "u", "##g", "##n", "##s", "##u"]
    vocab = learn_wordpiece_vocabulary(counts, len(SPECIALS) + len(alphabet) + 3, SPECIALS)
    assert vocab == SPECIALS + alphabet + ["##ug", "##un", "hug"]


def test_ties_go_to_the_pieces_that_sort_first_whatever_the_word_order():
    a = learn_wordpiece_vocabulary({"cd": 2, "ab": 2}, len(SPECIALS) + 7, SPECIALS)
    b = learn_wordpiece_vocabulary({"ab": 2, "cd": 2}, len(SPECIALS) + 7, SPECIALS)
    assert a == b == SPECIALS + ["a", "b", "c", "d", "##b", "##d", "ab"]


def test_the_same_vocabulary_as_tokenizers_where_no_pair_ties():
    """On counts chosen so that no two pairs ever tie, the Rust trainer's vocabulary (a set) equals ours."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    texts = [word for word, n in counts.items() for _ in range(n)]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    size = len(SPECIALS) + 11 + 3
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=size, special_tokens=SPECIALS,
                                                             show_progress=False))
    assert set(tok.get_vocab()) == set(learn_wordpiece_vocabulary(counts, size, SPECIALS))

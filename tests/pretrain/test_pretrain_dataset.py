"""Packed pre-training datasets: layout per family, order, split, entropy, cache, cancel, sampler."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

import lm_workbench.engine.pretrain.dataset as dataset_module
from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.pretrain.corpus import CorpusSpec
from lm_workbench.engine.pretrain.dataset import ExampleSampler, prepare_dataset
from lm_workbench.engine.progress import CancelToken, Progress, run_to_completion
from tests.support.pretrain_helpers import FAMILIES, read_documents, train_all, write_corpus

SEQ = 32


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("pretrain-dataset")
    corpus = write_corpus(root / "corpus.txt", documents=24, long_line_words=60)
    tokenizers = train_all(root / "tok", corpus, vocab_size=400)
    return root, corpus, tokenizers


def prepare(tokenizer, family, corpus, cache, *, fraction=0.0, seed=0, seq_len=SEQ, **kwargs):
    spec = CorpusSpec([str(p) for p in (corpus if isinstance(corpus, list) else [corpus])], fraction, seed)
    return run_to_completion(prepare_dataset(spec, tokenizer, family, seq_len, cache, **kwargs))


def line_ids(tokenizer, corpus):
    """Each document's lines tokenized directly with the tokenizer (no special tokens)."""
    return [[tokenizer(line, add_special_tokens=False)["input_ids"] for line in doc] for doc in read_documents(corpus)]


def content(example, tokenizer):
    special = set(tokenizer.all_special_ids)
    return [t for t in example if t not in special]


WRAP = {"bert": ("cls_token_id", "sep_token_id"), "bart": ("bos_token_id", "eos_token_id"),
        "t5": (None, "eos_token_id")}


@pytest.mark.parametrize("family", ["bert", "bart", "t5"])
def test_line_packing_wraps_examples_and_keeps_lines_and_documents(setup, tmp_path, family, monkeypatch):
    _, corpus, toks = setup
    tok = toks[family]
    monkeypatch.setattr(dataset_module, "CHUNK_LINES", 5)  # many chunks: boundaries must not matter
    data = prepare(tok, family, corpus, tmp_path)
    assert len(data.validation) == 0 and data.stats["split_by"] == "documents"
    first, last = WRAP[family]
    docs = line_ids(tok, corpus)
    got, boundaries = [], set()
    for example in data.train:
        assert len(example) <= SEQ
        if first:
            assert example[0] == getattr(tok, first)
        assert example[-1] == getattr(tok, last)
        inner = example[(1 if first else 0):-1]
        assert not set(inner) & set(tok.all_special_ids)
        got.extend(inner)
        boundaries.add(len(got))
    expected = [t for doc in docs for line in doc for t in line]
    assert got == expected  # every token of the corpus, in order
    # An example ends at every document end, and (for lines that fit) only at line ends.
    budget = SEQ - (2 if first else 1)
    position, line_ends = 0, {0}
    for doc in docs:
        for line in doc:
            if len(line) > budget:  # the long line is cut: its pieces may end anywhere
                line_ends.update(range(position, position + len(line) + 1))
            position += len(line)
            line_ends.add(position)
        assert position in boundaries
    assert boundaries <= line_ends
    assert any(len(line) > budget for doc in docs for line in doc)


def test_gpt2_streams_documents_with_endoftext_in_full_blocks(setup, tmp_path):
    _, corpus, toks = setup
    tok = toks["gpt2"]
    data = prepare(tok, "gpt2", corpus, tmp_path)
    examples = list(data.train)
    assert all(len(e) == SEQ for e in examples[:-1]) and 2 <= len(examples[-1]) <= SEQ
    expected = [t for doc in line_ids(tok, corpus) for t in [x for line in doc for x in line] + [tok.eos_token_id]]
    assert [t for e in examples for t in e] == expected


def test_keep_documents_false_fills_examples_across_documents(setup, tmp_path):
    _, corpus, toks = setup
    kept = prepare(toks["bert"], "bert", corpus, tmp_path / "a")
    packed = prepare(toks["bert"], "bert", corpus, tmp_path / "b", keep_documents=False)
    assert len(packed.train) < len(kept.train)
    assert [t for e in packed.train for t in content(e, toks["bert"])] == \
        [t for e in kept.train for t in content(e, toks["bert"])]


@pytest.mark.parametrize("family", FAMILIES)
def test_split_is_deterministic_disjoint_and_complete(setup, tmp_path, family):
    _, corpus, toks = setup
    tok = toks[family]
    a = prepare(tok, family, corpus, tmp_path / "a", fraction=0.2, seed=3)
    b = prepare(tok, family, corpus, tmp_path / "b", fraction=0.2, seed=3)
    c = prepare(tok, family, corpus, tmp_path / "c", fraction=0.2, seed=4)
    assert list(a.validation) == list(b.validation) and list(a.train) == list(b.train)
    assert len(a.validation) > 0 and len(a.train) > len(a.validation)
    assert list(c.validation) != list(a.validation)
    assert a.stats["validation_units"] == round(0.2 * 24)
    all_tokens = sorted(t for doc in line_ids(tok, corpus) for line in doc for t in line)
    split_tokens = sorted(t for s in (a.train, a.validation) for e in s for t in content(e, tok))
    assert split_tokens == all_tokens
    stats = a.stats
    assert stats["train_examples"] == len(a.train) and stats["validation_examples"] == len(a.validation)
    assert stats["train_tokens"] == sum(map(len, a.train)) and stats["documents"] == 24


def test_few_documents_split_by_line_and_two_lines_suffice(setup, tmp_path):
    _, _, toks = setup
    small = tmp_path / "small.txt"
    small.write_text("The cat sees a dog.\nA bird sings.\n\nThe river moves slowly.\n", encoding="utf-8")
    data = prepare(toks["bert"], "bert", small, tmp_path / "c1", fraction=0.05)
    assert data.stats["split_by"] == "lines" and len(data.validation) == 1 and len(data.train) >= 1
    two = tmp_path / "two.txt"
    two.write_text("The cat sees a dog.\nA bird sings.\n", encoding="utf-8")
    data = prepare(toks["t5"], "t5", two, tmp_path / "c2", fraction=0.05)
    assert len(data.validation) == 1 and len(data.train) == 1
    one = tmp_path / "one.txt"
    one.write_text("Only one line.\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="too small"):
        prepare(toks["bert"], "bert", one, tmp_path / "c3", fraction=0.05)


@pytest.mark.parametrize("family", FAMILIES)
def test_unigram_entropy_matches_numpy(setup, tmp_path, family):
    _, corpus, toks = setup
    tok = toks[family]
    data = prepare(tok, family, corpus, tmp_path, fraction=0.2)
    special = set(tok.all_special_ids)
    tokens = np.array([t for e in data.train for t in e if t not in special])
    _, counts = np.unique(tokens, return_counts=True)
    p = counts / counts.sum()
    assert data.stats["unigram_entropy"] == pytest.approx(float(-(p * np.log(p)).sum()), rel=1e-12)
    assert 0 < data.stats["unigram_entropy"] < np.log(len(tok))


def test_cache_reuses_and_invalidates(setup, tmp_path):
    _, corpus_src, toks = setup
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(corpus_src.read_bytes())
    tok = toks["bart"]
    first = prepare(tok, "bart", corpus, tmp_path / "cache")
    again = prepare(tok, "bart", corpus, tmp_path / "cache")
    assert not first.cached and again.cached and again.stats == first.stats
    assert list(again.train) == list(first.train)
    other_len = prepare(tok, "bart", corpus, tmp_path / "cache", seq_len=SEQ + 8)
    assert not other_len.cached
    corpus.write_text(corpus_src.read_text(encoding="utf-8") + "\nA new line at the end.\n", encoding="utf-8")
    os.utime(corpus, ns=(1, 1))
    changed = prepare(tok, "bart", corpus, tmp_path / "cache")
    assert not changed.cached and changed.stats["train_tokens"] > first.stats["train_tokens"]
    other_tok = prepare(toks["gpt2"], "gpt2", corpus, tmp_path / "cache")
    assert not other_tok.cached
    assert len([p for p in (tmp_path / "cache").iterdir()]) == 4
    assert json.loads((first.folder / "stats.json").read_text())["train_examples"] == len(first.train)


def test_cancel_leaves_nothing_behind(setup, tmp_path, monkeypatch):
    _, corpus, toks = setup
    monkeypatch.setattr(dataset_module, "CHUNK_LINES", 4)
    token = CancelToken()
    gen = prepare_dataset(CorpusSpec([str(corpus)]), toks["bert"], "bert", SEQ, tmp_path, cancel=token)
    reports = []
    with pytest.raises(Cancelled):
        for report in gen:
            reports.append(report)
            if isinstance(report, Progress) and report.message.startswith("tokenizing"):
                token.cancel()
    assert reports and all(isinstance(r, Progress) for r in reports)
    assert list(tmp_path.iterdir()) == []


def test_progress_is_monotonic_and_complete(setup, tmp_path, monkeypatch):
    _, corpus, toks = setup
    monkeypatch.setattr(dataset_module, "CHUNK_LINES", 8)
    gen = prepare_dataset(CorpusSpec([str(corpus)]), toks["t5"], "t5", SEQ, tmp_path)
    done = []
    while True:
        try:
            done.append(next(gen).fraction)
        except StopIteration:
            break
    assert done == sorted(done) and done[-1] == 1.0 and len(done) > 4


def test_bad_inputs(setup, tmp_path):
    _, corpus, toks = setup
    with pytest.raises(WorkbenchError, match="family"):
        prepare(toks["bert"], "xlnet", corpus, tmp_path)
    with pytest.raises(WorkbenchError, match="no room"):
        prepare(toks["bert"], "bert", corpus, tmp_path, seq_len=2)
    with pytest.raises(WorkbenchError, match="fraction"):
        prepare(toks["bert"], "bert", corpus, tmp_path, fraction=1.5)
    with pytest.raises(WorkbenchError, match="does not exist"):
        prepare(toks["bert"], "bert", tmp_path / "missing.txt", tmp_path)


def test_example_set_pickles_and_indexes(setup, tmp_path):
    _, corpus, toks = setup
    data = prepare(toks["gpt2"], "gpt2", corpus, tmp_path, fraction=0.2)
    clone = pickle.loads(pickle.dumps(data.train))
    assert len(clone) == len(data.train) and clone[-1] == data.train[len(data.train) - 1]
    assert all(isinstance(t, int) for t in clone[0])
    with pytest.raises(IndexError):
        data.train[len(data.train)]


# -- the sampler ------------------------------------------------------------------------------------


def test_sampler_epochs_are_the_seeded_permutations():
    sampler = ExampleSampler(10, 4, seed=7)
    stream = [i for _ in range(5) for i in sampler.next_indices()]  # 20 indices: two epochs exactly
    expected = list(np.random.default_rng([7, 0]).permutation(10)) + list(np.random.default_rng([7, 1]).permutation(10))
    assert stream == expected and sampler.epoch == 2 and sampler.position == 0


def test_sampler_resume_continues_exactly():
    straight = ExampleSampler(23, 5, seed=1)
    reference = [straight.next_indices() for _ in range(20)]
    first = ExampleSampler(23, 5, seed=1)
    head = [first.next_indices() for _ in range(7)]
    state = json.loads(json.dumps(first.state_dict()))
    resumed = ExampleSampler(23, 5, seed=1)
    resumed.load_state_dict(state)
    assert head + [resumed.next_indices() for _ in range(13)] == reference
    with pytest.raises(WorkbenchError):
        ExampleSampler(24, 5, seed=1).load_state_dict(state)


@pytest.mark.parametrize("n, batch, world", [(24, 3, 2), (25, 4, 3), (7, 2, 4)])
def test_rank_sharding_covers_each_index_once_per_epoch(n, batch, world):
    samplers = [ExampleSampler(n, batch, seed=5, rank=r, world_size=world) for r in range(world)]
    steps = n * 3 // (batch * world) + 2
    per_step = [[s.next_indices() for s in samplers] for _ in range(steps)]
    assert all(len(rows) == world and all(len(r) == batch for r in rows) for rows in per_step)
    stream = [i for rows in per_step for row in rows for i in row]  # rank-major within a step
    for epoch in range(len(stream) // n):
        assert sorted(stream[epoch * n:(epoch + 1) * n]) == list(range(n))
        assert stream[epoch * n:(epoch + 1) * n] == list(np.random.default_rng([5, epoch]).permutation(n))

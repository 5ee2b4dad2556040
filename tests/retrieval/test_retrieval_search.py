"""Dense retrieval against a numpy brute force on vectors from a plain transformers forward (one passage at a
time, pooled and normalised in numpy, ranked by a stable sort), and the index cache: resume after a cancel,
another model's index never mixed, passages past the window cut and counted."""

from __future__ import annotations

import numpy as np
import pytest

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress, run_to_completion
from lm_workbench.engine.retrieval.corpus import corpus_from_lines
from lm_workbench.engine.retrieval.encode import PassageEncoder
from lm_workbench.engine.retrieval.index import index_corpus_job
from tests.support.retrieval_reference import PASSAGES, QUERIES, brute_force_vectors, plain_hidden_states, pooled


@pytest.fixture(scope="module")
def tiny_bert(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model

    return load_model(str(tiny_models["bert"]))


@pytest.fixture(scope="module")
def tiny_states(tiny_models, tiny_bert):
    return plain_hidden_states(tiny_models["bert"], PASSAGES + QUERIES, PassageEncoder(tiny_bert, "mean").window)


def brute_force_ranking(passages, query):
    scores = passages @ query
    return sorted(range(len(scores)), key=lambda i: (-round(float(scores[i]), 5), i)), scores


@pytest.mark.parametrize("mode", ["mean", "cls", "max"])
def test_exact_search_matches_numpy_brute_force(tiny_bert, tiny_states, mode):
    corpus = corpus_from_lines(PASSAGES)
    index = run_to_completion(index_corpus_job(tiny_bert, corpus, mode))
    encoder = PassageEncoder(tiny_bert, mode)
    expected = pooled(tiny_states, mode)
    np.testing.assert_allclose(index.vectors, expected[:len(PASSAGES)], atol=2e-5)
    for j, query in enumerate(QUERIES):
        order, scores = brute_force_ranking(expected[:len(PASSAGES)], expected[len(PASSAGES) + j])
        idx, got = index.query(encoder, query, 10)
        np.testing.assert_allclose(got, scores[idx], atol=2e-5)
        assert [scores[i] for i in idx] == pytest.approx([scores[i] for i in order[:10]], abs=2e-5)


def test_model_pooling_of_a_sentence_transformers_folder(minilm):
    corpus = corpus_from_lines(PASSAGES[:6])
    index = run_to_completion(index_corpus_job(minilm, corpus, "model"))
    assert (index.mode, index.window) == ("mean", 256)  # 1_Pooling's mean; sentence_bert_config's 256 tokens
    states = plain_hidden_states(None, PASSAGES[:6], 256, minilm.base_model, minilm.tokenizer)  # the bare BertModel
    expected = pooled(states, "mean")
    np.testing.assert_allclose(index.vectors, expected, atol=2e-5)


def test_cancel_then_resume_from_the_cache(tiny_bert, tmp_path):
    corpus = corpus_from_lines(PASSAGES[:7])
    cancel = CancelToken()
    job = index_corpus_job(tiny_bert, corpus, "mean", tmp_path, chunk_size=2, cancel=cancel)
    with pytest.raises(Cancelled):
        for report in job:
            if isinstance(report, Progress) and report.done >= 2:
                cancel.cancel()
    resumed = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean", tmp_path, chunk_size=2))
    assert resumed.cached == 2  # the first chunk, finished before the cancel, is read back
    fresh = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean"))
    np.testing.assert_allclose(resumed.vectors, fresh.vectors, atol=1e-6)
    again = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean", tmp_path, chunk_size=2))
    assert again.cached == 7 and "7 of 7 passages read from the index cache" in again.notes


def test_another_models_index_is_never_mixed(tiny_bert, tiny_models, tmp_path):
    from lm_workbench.engine.models.loading import load_source as load_model

    gpt2 = load_model(str(tiny_models["gpt2"]))
    corpus = corpus_from_lines(PASSAGES[:5])
    a = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean", tmp_path))
    b = run_to_completion(index_corpus_job(gpt2, corpus, "mean", tmp_path))
    assert b.cached == 0 and a.key != b.key  # B encoded its own vectors
    with pytest.raises(WorkbenchError, match="built with"):
        a.query(PassageEncoder(gpt2, "mean"), "a query", 3)
    cls = run_to_completion(index_corpus_job(tiny_bert, corpus, "cls", tmp_path))
    assert cls.cached == 0 and not np.allclose(cls.vectors, a.vectors)
    # a cache folder whose meta.json says something else (another model's vectors under this key) is re-indexed
    meta = tmp_path / a.key / "meta.json"
    meta.write_text(meta.read_text().replace(a.model_identity, "0" * 64))
    np.save(tmp_path / a.key / "chunk-000000.npy", np.ones_like(a.vectors))
    again = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean", tmp_path))
    assert again.cached == 0 and "encoded again" in " ".join(again.notes)
    np.testing.assert_allclose(again.vectors, a.vectors, atol=1e-6)


def test_passage_past_the_window_is_cut_and_counted(tiny_bert, tiny_models):
    long = " ".join(PASSAGES)  # far more than the tiny model's 64 tokens
    corpus = corpus_from_lines([PASSAGES[0], long, long + " again"])
    index = run_to_completion(index_corpus_job(tiny_bert, corpus, "mean"))
    assert index.truncated == 2
    assert sum("longer than the model's window of 64 tokens" in n for n in index.notes) == 1
    expected = brute_force_vectors(tiny_models["bert"], [long], "mean", 64)
    np.testing.assert_allclose(index.vectors[1], expected[0], atol=2e-5)

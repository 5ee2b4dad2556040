"""The embedding explorer's math against independent numpy / scikit-learn / umap computations.

Neighbours are checked against a float64 brute force (ties defined there by
competition rank), the tie handling against permuted inputs, PCA against
scikit-learn, t-SNE and UMAP against the libraries called directly, the
leave-one-out accuracy, silhouette and anisotropy against hand computations.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lm_workbench.engine.embeddings.layer_sweep import layer_sweep_job, loo_nn_accuracy, silhouette
from lm_workbench.engine.embeddings.neighbours import NeighbourIndex
from lm_workbench.engine.embeddings.projection import (
    TSNE_SUBSAMPLE_ABOVE, ProjectionCache, project, projection_key, subsample,
)
from lm_workbench.engine.embeddings.sentence_embeddings import (
    anisotropy, cls_pool, different_word_pairs, mean_pool, model_pooling, resolve_pooling, similarity_matrix,
)
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress, iter_with_progress, run_to_completion

# ---------------------------------------------------------------- neighbours


def brute_force(vectors: np.ndarray, i: int, k: int, allowed: np.ndarray) -> set[tuple[int, int]]:
    """{(index, competition rank)} of every allowed row whose rank is <= k (float64, plain numpy)."""
    v = vectors.astype(np.float64)
    norms = np.linalg.norm(v, axis=1)
    norms[norms == 0] = 1
    s = (v @ v[i]) / (norms * norms[i])
    allowed = allowed.copy()
    allowed[i] = False
    rows = np.flatnonzero(allowed)
    out = set()
    for r in rows:
        rank = 1 + int(np.sum(s[rows] > s[r] + 1e-9))
        if rank <= k:
            out.add((int(r), rank))
    return out


def as_set(neighbours) -> set[tuple[int, int]]:
    return {(nb.index, nb.rank) for nb in neighbours}


@pytest.mark.parametrize("seed", range(5))
def test_neighbours_equal_brute_force_on_random_vectors(seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((400, 24)).astype(np.float32)
    index = NeighbourIndex(v)
    exclude = rng.random(400) < 0.2
    candidates = rng.random(400) < 0.7
    for i in rng.integers(0, 400, size=10):
        got = index.query(int(i), 7, exclude=exclude, candidates=candidates)
        want = brute_force(v, int(i), 7, candidates & ~exclude)
        assert as_set(got) == want
        assert [nb.rank for nb in got] == list(range(1, 8))  # no ties in continuous data
        ref = np.sort(-(v[[nb.index for nb in got]] @ v[i]) / np.linalg.norm(v[[nb.index for nb in got]], axis=1))
        assert np.allclose([nb.score for nb in got], -ref / np.linalg.norm(v[i]), atol=1e-5)
    # indices instead of masks give the same answer
    i = 3
    a = index.query(i, 5, exclude=np.flatnonzero(exclude), candidates=np.flatnonzero(candidates))
    assert a == index.query(i, 5, exclude=exclude, candidates=candidates)


@given(
    hnp.arrays(np.int8, st.tuples(st.integers(3, 40), st.integers(1, 4)), elements=st.integers(-2, 2)),
    st.integers(1, 6),
    st.data(),
)
def test_neighbours_with_many_ties_equal_brute_force(ints, k, data):
    v = ints.astype(np.float32)  # small integer vectors: many exact duplicates and equal cosines
    i = data.draw(st.integers(0, len(v) - 1))
    got = NeighbourIndex(v).query(i, k)
    assert as_set(got) == brute_force(v, i, k, np.ones(len(v), dtype=bool))
    ranks = [nb.rank for nb in got]
    for nb in got:
        assert nb.tied == (ranks.count(nb.rank) > 1)


def test_identical_vectors_are_ties_and_a_straddling_tie_is_returned_whole():
    rng = np.random.default_rng(1)
    base = rng.standard_normal(16).astype(np.float32)
    v = rng.standard_normal((30, 16)).astype(np.float32) * 0.1 + base * 0.5
    twins = [4, 11, 17, 25, 29]
    v[twins] = base  # five identical vectors
    query = 4
    got = NeighbourIndex(v).query(query, 2)  # four twins tie for first place: all come back
    assert [nb.index for nb in got] == [11, 17, 25, 29]
    assert all(nb.rank == 1 and nb.tied and nb.score == pytest.approx(1.0) for nb in got)
    # static-style: the order of the corpus must not pick the winners — permute and compare the groups
    perm = rng.permutation(len(v))
    inverse = np.argsort(perm)
    permuted = NeighbourIndex(v[perm]).query(int(inverse[query]), 2)
    assert {(int(perm[nb.index]), nb.rank) for nb in permuted} == as_set(got)


@given(st.integers(0, 2**32 - 1))
def test_permuting_the_corpus_permutes_the_answer(seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-1, 2, size=(25, 3)).astype(np.float32)
    perm = rng.permutation(len(v))
    inverse = np.argsort(perm)
    for i in range(0, 25, 6):
        a = as_set(NeighbourIndex(v).query(i, 4))
        b = {(int(perm[j]), r) for j, r in as_set(NeighbourIndex(v[perm]).query(int(inverse[i]), 4))}
        assert a == b


def test_neighbour_bad_input():
    index = NeighbourIndex(np.eye(4, dtype=np.float32))
    with pytest.raises(WorkbenchError):
        index.query(7, 2)
    with pytest.raises(WorkbenchError):
        index.query(0, 0)
    with pytest.raises(WorkbenchError):
        index.query(0, 2, exclude=np.ones(3, dtype=bool))
    assert index.query(0, 3, candidates=[0]) == []  # the only candidate is the query itself


# ---------------------------------------------------------------- projections


def test_pca_matches_scikit_learn_up_to_sign_and_is_sign_fixed():
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(0)
    x = (rng.standard_normal((300, 12)) * np.linspace(3, 0.5, 12)).astype(np.float32) + 5
    reports = list(iter_with_progress(project(x, "pca")))
    coords = reports[-1]
    assert all(isinstance(r, Progress) for r in reports[:-1])
    ref = PCA(n_components=2, svd_solver="full").fit_transform(x.astype(np.float64))
    for j in range(2):
        sign = np.sign(ref[:, j] @ coords[:, j])
        assert np.allclose(coords[:, j], sign * ref[:, j], atol=1e-3)
    shuffled = rng.permutation(300)
    again = run_to_completion(project(x[shuffled], "pca"))
    assert np.allclose(again, coords[shuffled], atol=1e-4)  # same axes, same signs


def test_tsne_is_deterministic_for_a_seed_and_equals_scikit_learn():
    from sklearn.manifold import TSNE
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal((150, 16)) + 3, rng.standard_normal((150, 16)) - 3]).astype(np.float32)
    params = {"perplexity": 20.0, "max_iter": 250}
    # one OpenMP thread: results do not depend on it, and spinning threads crawl on a shared 2-core machine
    with threadpool_limits(1):
        a = run_to_completion(project(x, "tsne", seed=3, params=params))
        b = run_to_completion(project(x, "tsne", seed=3, params=params))
        ref = TSNE(n_components=2, perplexity=20.0, metric="cosine", max_iter=250, init="pca",
                   learning_rate="auto", random_state=3).fit_transform(x)
        # with a random start the seed decides the map
        rand = {**params, "init": "random"}
        r3 = run_to_completion(project(x, "tsne", seed=3, params=rand))
        r4 = run_to_completion(project(x, "tsne", seed=4, params=rand))
    assert a.shape == (300, 2) and np.array_equal(a, b)
    assert np.allclose(a, ref, atol=1e-4)
    assert not np.allclose(r3, r4)


@pytest.mark.slow
def test_umap_is_deterministic_for_a_seed_and_equals_umap_learn():
    import umap

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal((250, 32)) + 2, rng.standard_normal((250, 32)) - 2]).astype(np.float32)
    params = {"n_neighbors": 10, "min_dist": 0.2}
    a = run_to_completion(project(x, "umap", seed=7, params=params))
    b = run_to_completion(project(x, "umap", seed=7, params=params))
    assert a.shape == (500, 2) and np.array_equal(a, b)
    ref = umap.UMAP(n_components=2, n_neighbors=10, min_dist=0.2, metric="cosine", random_state=7,
                    n_jobs=1).fit_transform(x)
    assert np.allclose(a, ref, atol=1e-5)


def test_projection_bad_input_and_cancel():
    x = np.zeros((3, 4), dtype=np.float32)
    with pytest.raises(WorkbenchError):
        run_to_completion(project(x, "tsne"))  # too few points
    with pytest.raises(WorkbenchError):
        run_to_completion(project(np.ones((10, 4)), "mds"))
    with pytest.raises(WorkbenchError):
        run_to_completion(project(np.ones((10, 4)), "umap", params={"neighbours": 3}))
    with pytest.raises(WorkbenchError):
        run_to_completion(project(np.full((10, 4), np.nan), "pca"))
    token = CancelToken()
    token.cancel()
    from lm_workbench.engine.errors import Cancelled

    with pytest.raises(Cancelled):
        run_to_completion(project(np.ones((10, 4)), "tsne", cancel=token))


def test_subsample_and_cache():
    idx = subsample(50_000, TSNE_SUBSAMPLE_ABOVE, seed=1)
    assert len(idx) == TSNE_SUBSAMPLE_ABOVE == len(np.unique(idx)) and np.all(np.diff(idx) > 0)
    assert np.array_equal(idx, subsample(50_000, TSNE_SUBSAMPLE_ABOVE, seed=1))
    assert not np.array_equal(idx, subsample(50_000, TSNE_SUBSAMPLE_ABOVE, seed=2))
    assert np.array_equal(subsample(10, 20), np.arange(10))

    cache = ProjectionCache(max_entries=2)
    k1 = projection_key("minilm", "demo", "12", "umap", {"n_neighbors": 15, "min_dist": 0.1})
    assert k1 == projection_key("minilm", "demo", "12", "UMAP", {"min_dist": 0.1, "n_neighbors": 15})
    k2 = projection_key("minilm", "demo", "static", "pca")
    k3 = projection_key("minilm", "demo", "12", "pca")
    cache.put(k1, np.ones((3, 2)))
    cache.put(k2, np.zeros((3, 2)))
    assert cache.get(k1) is not None  # k1 is now the most recently used
    cache.put(k3, np.zeros((3, 2)))
    assert k1 in cache and k3 in cache and k2 not in cache and len(cache) == 2
    with pytest.raises(ValueError):
        cache.get(k1)[0, 0] = 5  # read-only


# ---------------------------------------------------------------- layer sweep


def test_loo_accuracy_with_ties_equals_hand_computation():
    v = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0.1, 1]], dtype=np.float32)
    labels = ["A", "B", "A", "B", "A"]
    # p0: ties p1 (B), p2 (A) -> 1/2; p1: ties p0, p2 (both A) -> 0; p2: ties p0 (A), p1 (B) -> 1/2;
    # p3: nearest p4 (A) -> 0; p4: nearest p3 (B) -> 0
    assert loo_nn_accuracy(v, labels) == pytest.approx(1.0 / 5)
    groups = ["w", "w", "v", "v", "w"]
    # p0: p1 (1.0, B) beats p4 -> 0; p1: p0 (A) -> 0; p4: p0 (A) and p1 (B) tie -> 1/2; p2: p3 (B) -> 0; p3: p2 -> 0
    assert loo_nn_accuracy(v, labels, groups=groups) == pytest.approx(0.5 / 5)
    # a point alone in its group has no neighbour and is left out of the mean
    # p3 (B) now ties p0, p1, p2 at cosine 0 (A, B, A) -> 1/3; p0, p1, p2 as above
    assert loo_nn_accuracy(v, labels, groups=["w", "w", "w", "w", "x"]) == pytest.approx((0.5 + 0.5 + 1 / 3) / 4)


def test_static_style_identical_vectors_score_same_label_fraction():
    rng = np.random.default_rng(0)
    w, u = rng.standard_normal(8), rng.standard_normal(8)
    v = np.array([w, w, w, w, u, u, u], dtype=np.float32)
    senses = ["a", "a", "a", "b", "c", "d", "c"]
    words = ["w"] * 4 + ["u"] * 3
    expected = np.mean([2 / 3, 2 / 3, 2 / 3, 0 / 3, 1 / 2, 0 / 2, 1 / 2])  # (same-label others) / (others)
    assert loo_nn_accuracy(v, senses, groups=words) == pytest.approx(expected)


def test_loo_accuracy_equals_argmax_brute_force_without_ties():
    rng = np.random.default_rng(5)
    v = rng.standard_normal((120, 10))
    labels = rng.integers(0, 3, 120)
    groups = rng.integers(0, 4, 120)
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    s = unit @ unit.T
    hits = []
    for i in range(120):
        row = np.where((groups == groups[i]) & (np.arange(120) != i), s[i], -np.inf)
        hits.append(labels[int(np.argmax(row))] == labels[i])
    assert loo_nn_accuracy(v, list(labels), groups=list(groups)) == pytest.approx(np.mean(hits))


def test_silhouette_equals_hand_computation_and_sweep_keeps_layer_order():
    rng = np.random.default_rng(2)
    v = rng.standard_normal((30, 5))
    labels = ["x"] * 10 + ["y"] * 12 + ["z"] * 8
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    d = 1 - unit @ unit.T
    lab = np.array(labels)
    s = []
    for i in range(30):
        same = (lab == lab[i]) & (np.arange(30) != i)
        a = d[i, same].mean()
        b = min(d[i, lab == other].mean() for other in set(labels) - {lab[i]})
        s.append((b - a) / max(a, b))
    assert silhouette(v, labels) == pytest.approx(np.mean(s), abs=1e-6)
    assert np.isnan(silhouette(v, ["x"] * 30))

    separated = np.repeat(np.eye(3), [10, 12, 8], axis=0) + 0.01 * rng.standard_normal((30, 3))
    scores = run_to_completion(layer_sweep_job({"static": v, 3: separated}, labels))
    assert [sc.layer for sc in scores] == ["static", 3]
    assert scores[1].accuracy == 1.0 and scores[1].silhouette > 0.9
    assert scores[0].accuracy == pytest.approx(loo_nn_accuracy(v, labels))



def test_the_embeddings_tab_sweeps_only_occurrences_their_line_was_written_for():
    """A "word:sense" label belongs to the word its line was written for: the tab's sweep job leaves out
    another word's occurrence in that line, as the engine's table sweep does."""
    from types import SimpleNamespace

    from lm_workbench.embeddings.view_tasks import sweep as tab_sweep

    rng = np.random.default_rng(0)
    words = ["bank"] * 6 + ["play"] * 6 + ["bank"]  # the last "bank" sits in a line written for "play"
    labels = ["bank:money"] * 3 + ["bank:river"] * 3 + ["play:theatre"] * 3 + ["play:game"] * 3 + ["play:theatre"]
    vectors = {key: rng.standard_normal((13, 4)).astype(np.float32) for key in ("static", 1)}
    table = SimpleNamespace(words=words, labels=labels, vectors=vectors, layers=[1])
    scores, n = run_to_completion(tab_sweep(table, "bank", CancelToken()))
    assert n == 6
    want = run_to_completion(layer_sweep_job({k: v[:6] for k, v in vectors.items()}, labels[:6]))
    assert [sc.layer for sc in scores] == ["static", 1]
    assert [sc.accuracy for sc in scores] == pytest.approx([sc.accuracy for sc in want])
    assert [sc.silhouette for sc in scores] == pytest.approx([sc.silhouette for sc in want])


# ---------------------------------------------------------------- sentence vectors and anisotropy


def test_anisotropy_equals_hand_computation_for_its_pairs():
    rng = np.random.default_rng(0)
    word_of = ["bank", "bank", "play", "play", "play", "bat", "spring"]
    layers = {0: rng.standard_normal((7, 6)), 5: rng.standard_normal((7, 6)) + 2}
    pairs = different_word_pairs(word_of, pairs=200, seed=3)
    assert pairs.shape == (200, 2)
    assert all(word_of[i] != word_of[j] for i, j in pairs)
    assert np.array_equal(pairs, different_word_pairs(word_of, pairs=200, seed=3))
    got = anisotropy(layers, word_of, pairs=200, seed=3)
    for layer, v in layers.items():
        cos = [v[i] @ v[j] / (np.linalg.norm(v[i]) * np.linalg.norm(v[j])) for i, j in pairs]
        assert got[layer] == pytest.approx(np.mean(cos))
    # every different-word pair has cosine 1/sqrt(2) here, whichever pairs are drawn
    fixed = anisotropy({"x": np.array([[1.0, 0], [0, 1], [1, 1]])}, ["a", "a", "b"], pairs=50, seed=9)
    assert fixed["x"] == pytest.approx(2 ** -0.5)
    with pytest.raises(WorkbenchError):
        anisotropy(layers, ["w"] * 7)


def test_pooling_and_similarity_equal_hand_computation(tmp_path):
    h = np.arange(12, dtype=np.float32).reshape(3, 4)  # [T=3, H=4]
    assert np.allclose(mean_pool(h), h.mean(axis=0))
    assert np.allclose(mean_pool(h, np.array([1, 1, 0])), h[:2].mean(axis=0))
    assert np.allclose(cls_pool(h), h[0])
    batch = np.stack([h, h * 2])  # [B=2, T, H]
    assert np.allclose(mean_pool(batch, np.array([[1, 0, 0], [1, 1, 1]])), [h[0], 2 * h.mean(axis=0)])
    v = np.random.default_rng(0).standard_normal((5, 4))
    ref = np.array([[a @ b / np.linalg.norm(a) / np.linalg.norm(b) for b in v] for a in v])
    assert np.allclose(similarity_matrix(v), ref, atol=1e-6)

    assert model_pooling(tmp_path) is None
    with pytest.raises(WorkbenchError):
        resolve_pooling("model", tmp_path)
    (tmp_path / "modules.json").write_text(
        '[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},'
        ' {"idx": 1, "name": "1", "path": "pool", "type": "sentence_transformers.models.Pooling"}]'
    )
    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert model_pooling(tmp_path) == ("cls", False)

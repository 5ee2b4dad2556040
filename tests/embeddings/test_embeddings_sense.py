"""Word senses and sentence vectors with the real offline MiniLM.

The headline check of the embedding explorer: on the built-in demo set,
leave-one-out 1-NN sense accuracy (neighbours restricted to the same word) at
MiniLM's last layer beats the static baseline (input-embedding rows, where
all occurrences of a word are identical and tie) by at least 15 points. The
static figure is also derived from the sense counts alone, and a sample of
the contextual vectors is recomputed with plain transformers. Run with -s to
see the numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.embeddings.layer_sweep import layer_sweep_job, layer_sweep_table, loo_nn_accuracy
from lm_workbench.engine.embeddings.sentence_embeddings import anisotropy, model_pooling, sentence_vectors
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.default import default_model_folder
from lm_workbench.engine.progress import run_to_completion

SENTENCES = [
    "The bank raised its interest rates again.",
    "We had a picnic on the bank of the river.",
    "A cat sat on the mat.",
    "Stock markets fell sharply this morning.",
]


@pytest.fixture(scope="module")
def plain_minilm():
    """The same weights through plain transformers (the independent reference)."""
    from transformers import AutoModel, AutoTokenizer

    folder = default_model_folder()
    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


@pytest.fixture(scope="module")
def demo_table(minilm):
    """The demo set's occurrences of its own words, every layer plus static; one occurrence per line."""
    from lm_workbench.engine.embeddings.demo_set import demo_corpus
    from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors

    corpus = demo_corpus()
    words = sorted({label.split(":")[0] for label in corpus.labels})
    table = run_to_completion(extract_occurrence_vectors(
        minilm, corpus, words=words, layers=list(range(minilm.info.layers + 1))))
    rows, seen = [], set()
    for i, occ in enumerate(table.occurrences):
        word = corpus.labels[occ.line].split(":")[0]
        if occ.key == word.lower() and occ.line not in seen:  # the line's own word, first occurrence
            rows.append(i)
            seen.add(occ.line)
    assert len(seen) >= 0.95 * len(corpus.lines), "most demo lines should contain their word"
    return corpus, table, np.array(rows)


def test_minilm_declares_mean_pooling_and_l2_normalisation():
    assert model_pooling(default_model_folder()) == ("mean", True)


def test_sentence_vectors_equal_plain_transformers(minilm, plain_minilm):
    tokenizer, model = plain_minilm
    batch = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    with torch.inference_mode():
        out = model(**batch, output_hidden_states=True)
    mask = batch["attention_mask"].unsqueeze(-1).float()  # [B, T, 1]
    mean = (out.last_hidden_state * mask).sum(1) / mask.sum(1)  # [B, H]
    want_model = torch.nn.functional.normalize(mean, dim=-1).numpy()
    want_cls_l3 = out.hidden_states[3][:, 0].numpy()

    got_model = run_to_completion(sentence_vectors(minilm, SENTENCES, pooling="model"))
    got_mean = run_to_completion(sentence_vectors(minilm, SENTENCES, pooling="mean"))
    got_cls_l3 = run_to_completion(sentence_vectors(minilm, SENTENCES, pooling="cls", layer=3))
    assert got_model.shape == (4, 384)
    assert np.allclose(got_model, want_model, atol=1e-4)
    assert np.allclose(np.linalg.norm(got_model, axis=1), 1.0, atol=1e-5)
    assert np.allclose(got_mean, mean.numpy(), atol=1e-4)
    assert np.allclose(got_cls_l3, want_cls_l3, atol=1e-4)
    with pytest.raises(WorkbenchError):
        run_to_completion(sentence_vectors(minilm, SENTENCES, layer=7))  # MiniLM has hidden states 0..6
    with pytest.raises(WorkbenchError):
        run_to_completion(sentence_vectors(minilm, SENTENCES, pooling="median"))  # max is a pooling now (issue 32)


def test_contextual_sense_accuracy_beats_static_by_15_points(demo_table, plain_minilm):
    corpus, table, rows = demo_table
    occs = [table.occurrences[i] for i in rows]
    senses = [corpus.labels[o.line] for o in occs]
    words = [o.key for o in occs]
    last = table.num_layers
    contextual = loo_nn_accuracy(table.vectors[last][rows], senses, groups=words)
    static_vectors = table.vectors["static"][rows]
    static = loo_nn_accuracy(static_vectors, senses, groups=words)

    # the static baseline from the sense counts alone: every occurrence of a word ties with all the others
    for w in set(words):
        same = static_vectors[[i for i, x in enumerate(words) if x == w]]
        assert np.allclose(same, same[0])
    expected = []
    for w, s in zip(words, senses):
        others = sum(1 for x in words if x == w) - 1
        same_sense = sum(1 for x, y in zip(words, senses) if x == w and y == s) - 1
        expected.append(same_sense / others)
    assert static == pytest.approx(np.mean(expected))

    # a sample of contextual vectors, recomputed with plain transformers (mean of the word's subwords)
    tokenizer, model = plain_minilm
    for o, row in zip(occs[:: max(1, len(occs) // 8)], rows[:: max(1, len(occs) // 8)]):
        enc = tokenizer(corpus.lines[o.line], return_tensors="pt")
        with torch.inference_mode():
            h = model(**enc).last_hidden_state[0]  # [T, H]
        want = h[o.token_start:o.token_end].mean(0).numpy()
        assert np.allclose(table.vectors[last][row], want, atol=1e-3)

    sweep = run_to_completion(layer_sweep_job(
        {"static": static_vectors, **{k: table.vectors[k][rows] for k in range(last + 1)}}, senses, groups=words))
    # the table-level sweep picks the same occurrences (each demo line holds its word once) and agrees
    from_table = run_to_completion(layer_sweep_table(table))
    assert [sc.layer for sc in from_table] == [sc.layer for sc in sweep]
    assert np.allclose([sc.accuracy for sc in from_table], [sc.accuracy for sc in sweep])
    bank = run_to_completion(layer_sweep_table(table, word="Bank"))
    n_bank = words.count("bank")
    assert bank[0].accuracy == pytest.approx(np.mean([e for e, w in zip(expected, words) if w == "bank"]))
    assert n_bank >= 20

    aniso = anisotropy({k: table.vectors[k][rows] for k in ["static", *range(last + 1)]}, words, pairs=1000, seed=0)
    print(f"\nMiniLM demo set: {len(occs)} occurrences of {len(set(words))} words, {len(set(senses))} senses")
    print(f"LOO 1-NN sense accuracy (same word): last layer {contextual:.3f}, static {static:.3f}, "
          f"difference {100 * (contextual - static):.1f} points")
    for score in sweep:
        print(f"  layer {score.layer!s:>6}: accuracy {score.accuracy:.3f} silhouette {score.silhouette:+.3f} "
              f"anisotropy {aniso[score.layer]:.3f}")
    assert contextual >= static + 0.15

"""Top contexts, density and histograms of every feature at once equal a brute-force computation over the corpus
from a plain forward pass (hidden states) and the SAE's formula written here; the logit effect is W_U · W_dec[i]."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.anatomy.points import resolve
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.progress import drive
from lm_workbench.engine.sae.features import EDGES, feature_stats, logit_effect, top_contexts
from lm_workbench.engine.sae.kinds import SparseAutoencoder
from tests.support.tiny_models import corpus_lines


def test_top_contexts_density_and_histogram_match_brute_force(tiny_models):
    loaded = load_source(str(tiny_models["gpt2"]))
    lines = corpus_lines(12)
    sae = SparseAutoencoder("topk", 32, 48, 6, seed=2)
    found = drive(top_contexts(loaded, resolve(loaded, "blocks.0.hook_resid_post"), sae, lines, n=3,
                               chunk_texts=5, max_tokens=10**6))
    rows, where = [], []
    with torch.no_grad():
        for number, text in enumerate(lines):
            ids = loaded.tokenizer(text, return_tensors="pt", truncation=True, max_length=64)["input_ids"]
            hidden = loaded.model(ids, output_hidden_states=True).hidden_states[1][0]
            pre = (hidden - sae.b_dec) @ sae.W_enc + sae.b_enc
            values, index = pre.topk(6, dim=-1)
            rows.append(torch.zeros_like(pre).scatter(-1, index, values.clamp(min=0)))
            where += [(number, p) for p in range(len(ids[0]))]
    f = torch.cat(rows)  # [tokens, features]
    assert found.tokens == len(f)
    np.testing.assert_allclose(found.density.numpy(), (f > 0).float().mean(0).numpy(), atol=1e-6)
    top, _ = f.topk(3, dim=0)
    np.testing.assert_allclose(found.values.numpy(), top.numpy(), atol=1e-5)
    for feature in (0, 17, 40):
        for rank in range(3):
            if top[rank, feature] > 0:  # the place found holds that value (ties: equal first tokens)
                row = where.index(tuple(found.where[rank, feature].tolist()))
                assert float(f[row, feature]) == pytest.approx(float(top[rank, feature]), abs=1e-5)
        counts, _ = np.histogram(np.clip(f[:, feature][f[:, feature] > 0].numpy(), EDGES[0], EDGES[-1] * 0.999),
                                 bins=EDGES)
        assert found.histograms[feature].tolist() == counts.tolist()
    stats = feature_stats(loaded, resolve(loaded, "blocks.0.hook_resid_post"), sae, found, 17)
    assert stats.contexts[0].activation == pytest.approx(float(top[0, 17]), abs=1e-5)
    assert stats.contexts[0].values[stats.contexts[0].peak] == pytest.approx(float(top[0, 17]), abs=1e-5)
    effect, notes = logit_effect(loaded, sae, 17, k=3)
    expected = loaded.model.get_output_embeddings().weight @ sae.W_dec[17]
    assert [e["value"] for e in effect["promoted"]] == pytest.approx(expected.topk(3).values.tolist(), rel=1e-5)
    assert notes == []

"""ELMo as a model family: load_model on both folder kinds, info/encode CLI, the Embeddings tab's vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.checkpoint import save_elmo
from lm_workbench.engine.elmo.config import ElmoConfig
from lm_workbench.engine.elmo.words import split_words
from lm_workbench.engine.embeddings.corpus import corpus_from_text
from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import run_to_completion
from tests.support.elmo_published import published_arrays, write_published
from lm_workbench.cli.main import main

TEXT = "The cat sat, didn't it? Ünïcode words too."
TINY = ElmoConfig(char_embedding_dim=4, filters=((1, 4), (2, 4), (3, 6)), n_highway=1, lstm_dim=12,
                  projection_dim=5, n_layers=2, vocab_size=30)


@pytest.fixture(scope="module")
def elmo_dir(tmp_path_factory):
    torch.manual_seed(3)
    return save_elmo(ElmoModel(TINY), tmp_path_factory.mktemp("elmo") / "tiny")


def _direct_layers(model: ElmoModel, words: list[str]) -> np.ndarray:
    with torch.no_grad():
        out = model(batch_to_char_ids([words]))
    return np.stack([layer[0].numpy() for layer in out.layers])  # [L+1, T, 2P]


def test_saved_folder_loads_as_a_bilm_with_words_and_every_layer(elmo_dir):
    loaded = load_model(str(elmo_dir))
    info = loaded.info
    assert (info.family, info.model_type, info.layers, info.heads, info.hidden_size) == ("biLM", "elmo", 2, 0, 10)
    assert info.parameters == sum(p.numel() for p in ElmoModel(TINY).parameters())
    enc = encode(loaded, TEXT)
    words = [w for w, _, _ in split_words(TEXT)]
    assert enc.tokens == words and "didn" in words and "'" in words  # punctuation split off, no <S>/</S>
    assert [TEXT[s:e] for s, e in enc.tokenized.offsets] == words
    assert not any(enc.tokenized.special) and enc.attentions is None
    np.testing.assert_allclose(enc.hidden_states, _direct_layers(loaded.model, words), atol=1e-6)


def test_allennlp_folder_loads_by_path(tmp_path):
    write_published(tmp_path / "published", published_arrays())
    loaded = load_model(str(tmp_path / "published"))
    assert (loaded.info.family, loaded.info.layers, loaded.info.hidden_size, loaded.info.vocab_size) == \
        ("biLM", 2, 8, 0)
    enc = encode(loaded, "a b")
    np.testing.assert_allclose(enc.hidden_states, _direct_layers(loaded.model, ["a", "b"]), atol=1e-6)


def test_info_and_encode_cli(elmo_dir, tmp_path, capsys):
    assert main(["info", str(elmo_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["family"], info["layers"], info["hidden_size"], info["heads"]) == ("biLM", 2, 10, 0)
    out = tmp_path / "x.npz"
    assert main(["encode", str(elmo_dir), "--text", TEXT, "--out", str(out)]) == 0
    data = np.load(out)
    assert "attentions" not in data.files
    words = [w for w, _, _ in split_words(TEXT)]
    assert list(data["tokens"]) == words
    from lm_workbench.engine.elmo.checkpoint import load_elmo
    np.testing.assert_allclose(data["hidden_states"], _direct_layers(load_elmo(elmo_dir), words), atol=1e-6)
    capsys.readouterr()
    assert main(["encode", str(elmo_dir), "--text", "a", "--pair", "b", "--out", str(out)]) == 2
    assert "pair" in capsys.readouterr().err
    assert main(["attention", str(elmo_dir), "--text", "a b", "--layer", "0", "--head", "0"]) == 2
    assert "has no attention" in capsys.readouterr().err


def test_embeddings_static_baseline_is_layer_0_and_context_free(elmo_dir):
    loaded = load_model(str(elmo_dir))
    corpus = corpus_from_text("the bank of the river\nmoney in the bank")
    table = run_to_completion(extract_occurrence_vectors(loaded, corpus, words=["bank"], layers=[0, 2]))
    static, layer0, top = (table.vectors[k] for k in ("static", 0, 2))
    assert static.shape == (2, 10)
    np.testing.assert_allclose(static, layer0)
    np.testing.assert_allclose(static[0], static[1], atol=1e-6)  # one word, one character-CNN vector
    assert np.abs(top[0] - top[1]).max() > 1e-4  # the biLSTM layers see the context
    want = _direct_layers(loaded.model, "money in the bank".split())[2, 3]
    np.testing.assert_allclose(top[1], want, atol=1e-6)


def test_probe_and_scalar_mix_run_over_an_elmo(elmo_dir, tmp_path, capsys, fresh_home):
    """Layer-wise probing and ELMo's own scalar mix work on an ELMo as on any model (layers 0..L)."""
    from lm_workbench.engine.probing.demo import POS_DEMO

    task = tmp_path / "pos.conllu"
    task.write_text("\n\n".join(POS_DEMO.read_text(encoding="utf-8").split("\n\n")[:30]) + "\n", encoding="utf-8")
    assert main(["probe", str(elmo_dir), "--task", str(task), "--kind", "token", "--json"]) == 0
    probe = json.loads(capsys.readouterr()[0])
    assert probe["layers"] == [0, 1, 2] and len(probe["accuracy"]) == 3
    assert main(["scalar-mix", str(elmo_dir), "--task", str(task), "--kind", "token", "--steps", "20",
                 "--json"]) == 0
    mix = json.loads(capsys.readouterr()[0])
    assert mix["layers"] == [0, 1, 2] and sum(mix["weights"]) == pytest.approx(1.0, abs=1e-5)


def test_the_api_caches_an_elmos_layers_and_refuses_to_replace_them(elmo_dir):
    import lm_workbench as lw
    from lm_workbench.engine.elmo.checkpoint import load_elmo
    from lm_workbench.engine.errors import WorkbenchError

    m = lw.load(str(elmo_dir))
    names = m.hook_names()
    assert names == ["hook_embed", "blocks.0.hook_resid_post", "blocks.1.hook_resid_post"]
    logits, cache = m.run_with_cache(TEXT)
    direct = _direct_layers(load_elmo(elmo_dir), [w for w, _, _ in split_words(TEXT)])  # the biLM called directly
    assert logits is None and list(cache) == names
    for layer, name in enumerate(names):
        assert tuple(cache[name].shape) == (1, *direct[layer].shape)
        np.testing.assert_allclose(cache[name][0].numpy(), direct[layer], atol=1e-6)
    _, one = m.run_with_cache(TEXT, names="blocks.1.hook_resid_post")
    assert list(one) == ["blocks.1.hook_resid_post"]
    with pytest.raises(WorkbenchError, match="nearest: blocks.1.hook_resid_post"):
        m.run_with_cache(TEXT, names=["blocks.1.hook_resid_pst"])
    with pytest.raises(WorkbenchError, match="can be read .* not replaced"):
        m.run_with_hooks(TEXT, hooks=[("hook_embed", lambda v, n: v)])

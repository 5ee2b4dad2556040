"""An ELMo's words mode: 'as-given' (whitespace-separated words as typed) against 'split' (the workbench's rule).

A published AllenNLP ELMo was trained on tokenized text, so it takes the words as given by default; an ELMo
the workbench trained splits them as its training did. An explicit choice (``--words``, the model's saved
setting, the model panel's "Words as typed") wins.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.checkpoint import default_words_mode, save_elmo
from lm_workbench.engine.elmo.config import ElmoConfig
from lm_workbench.engine.elmo.words import WordTokenizer, words_of
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
from lm_workbench.engine.tokens import tokenize
from tests.support.elmo_published import published_arrays, write_published
from lm_workbench.cli.main import main
from lm_workbench.models.loader import load_model_job
from lm_workbench.settings import Settings, load_settings, save_settings

TEXT = "The U.S. economy grew 3.5% in Jan. 2020 ."
AS_GIVEN = ["The", "U.S.", "economy", "grew", "3.5%", "in", "Jan.", "2020", "."]
AS_GIVEN_OFFSETS = [(0, 3), (4, 8), (9, 16), (17, 21), (22, 26), (27, 29), (30, 34), (35, 39), (40, 41)]
SPLIT = ["The", "U", ".", "S", ".", "economy", "grew", "3", ".", "5", "%", "in", "Jan", ".", "2020", "."]
TINY = ElmoConfig(char_embedding_dim=4, filters=((1, 4), (2, 4)), n_highway=1, lstm_dim=8,
                  projection_dim=4, n_layers=1, vocab_size=0)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A published AllenNLP-shaped folder: options.json + weights.hdf5."""
    folder = tmp_path_factory.mktemp("elmo-words") / "published"
    write_published(folder, published_arrays())
    return folder


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A workbench ELMo folder: config.json + model.safetensors."""
    torch.manual_seed(0)
    return save_elmo(ElmoModel(TINY), tmp_path_factory.mktemp("elmo-words") / "trained")


def test_as_given_takes_the_whitespace_words_and_split_splits_off_punctuation():
    assert AS_GIVEN == TEXT.split()
    given = WordTokenizer(words="as-given").tokenize_words(TEXT)
    assert given["tokens"] == AS_GIVEN and given["offsets"] == AS_GIVEN_OFFSETS
    assert given["word_ids"] == list(range(len(AS_GIVEN))) and set(given["ids"]) == {2}  # no vocabulary: <UNK>
    split = WordTokenizer(words="split").tokenize_words(TEXT)
    assert split["tokens"] == SPLIT
    assert [TEXT[s:e] for s, e in split["offsets"]] == SPLIT
    assert WordTokenizer().words == "split"  # the rule the workbench trains with stays the default
    odd = " a\tb\n\u00a0c  d.\u2003"
    assert [(w, odd[s:e]) for w, s, e in words_of(odd, "as-given")] == [(w, w) for w in odd.split()]
    tt = tokenize(WordTokenizer(words="as-given"), TEXT)
    assert tt.tokens == AS_GIVEN and list(tt.offsets) == AS_GIVEN_OFFSETS and not any(tt.special)
    with pytest.raises(ValueError, match="as-given, split"):
        WordTokenizer(words="spaces")


def test_a_published_folder_takes_words_as_given_and_a_trained_one_splits(published, trained):
    assert (default_words_mode(published), default_words_mode(trained)) == ("as-given", "split")
    pub = load_model(str(published))
    assert pub.info.words == "as-given" and pub.info.to_dict()["words"] == "as-given"
    assert tokenize(pub.tokenizer, TEXT).tokens == AS_GIVEN
    ours = load_model(str(trained))
    assert ours.info.words == "split" and tokenize(ours.tokenizer, TEXT).tokens == SPLIT
    # an explicit choice wins both ways
    assert tokenize(load_model(str(published), words="split").tokenizer, TEXT).tokens == SPLIT
    assert load_model(str(trained), words="as-given").info.words == "as-given"


def test_cli_words_flag_changes_the_tokens(published, tmp_path, capsys, fresh_home):
    out = tmp_path / "x.npz"
    assert main(["encode", str(published), "--text", TEXT, "--out", str(out), "--no-attentions"]) == 0
    assert list(np.load(out)["tokens"]) == AS_GIVEN
    assert main(["encode", str(published), "--text", TEXT, "--out", str(out), "--words", "split"]) == 0
    data = np.load(out)
    assert list(data["tokens"]) == SPLIT and data["hidden_states"].shape[1] == len(SPLIT)
    capsys.readouterr()
    assert main(["info", str(published), "--words", "split", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["words"] == "split"
    assert main(["info", str(published), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["words"] == "as-given"
    assert load_settings().model_words == {}  # a command line's choice is not saved
    assert main(["info", str(published), "--words", "spaces"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_the_choice_is_saved_per_model_and_beaten_only_by_the_flag(published, trained, capsys, fresh_home,
                                                                  monkeypatch):
    settings = Settings()
    settings.set_words(str(published), "split")
    raw = json.loads(save_settings(settings).read_text(encoding="utf-8"))
    assert raw["model_words"] == {str(published.resolve()): "split"}
    again = load_settings()
    monkeypatch.chdir(published.parent)
    assert again.words_for("published") == "split" == again.words_for(str(published) + "/")  # one model, any spelling
    assert again.words_for(str(trained)) is None
    loaded = run_to_completion(load_model_job(str(published), again, NEVER_CANCELLED))
    assert loaded.info.words == "split" and tokenize(loaded.tokenizer, TEXT).tokens == SPLIT
    assert main(["info", str(published), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["words"] == "split"  # the saved setting
    assert main(["info", str(published), "--json", "--words", "as-given"]) == 0
    assert json.loads(capsys.readouterr().out)["words"] == "as-given"  # the flag wins
    bad = Settings.from_dict({"model_words": {"a": "spaces", "b": "as-given", "": "split", "c": 3}})
    assert bad.model_words == {"b": "as-given"}
    assert Settings.from_dict({"model_words": ["as-given"]}).model_words == {}
    again.set_words(str(published), None)
    assert again.words_for(str(published)) is None


@pytest.mark.timeout(60)
def test_model_panel_words_as_typed_for_an_elmo_only(open_window, qtbot, published, fresh_home):
    from lm_workbench.engine.models.loading import ModelInfo
    from lm_workbench.ui.window.model_panel import ModelPanel

    window = open_window(str(published), "tokens", persist=True)
    box = window.model_panel.words_check
    assert box.isVisible() and box.isChecked() and box.text() == "Words as typed"
    window.text_input.set_text(TEXT, "")
    tokens = window.view("tokens").view.tokens
    qtbot.waitUntil(lambda: tokens() == AS_GIVEN, timeout=10000)
    box.click()  # off: the model is loaded again, splitting words
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.info.words == "split", timeout=20000)
    qtbot.waitUntil(lambda: tokens() == SPLIT, timeout=10000)
    assert box.isVisible() and not box.isChecked()
    assert load_settings().words_for(str(published)) == "split"  # saved in that model's settings

    panel = ModelPanel()
    qtbot.addWidget(panel)
    panel.show()
    minilm_like = ModelInfo(spec="minilm", folder="/m", source="default", family="encoder", model_type="bert",
                            layers=6, decoder_layers=None, heads=12, hidden_size=384, parameters=1, vocab_size=1,
                            has_mlm_head=False, has_lm_head=False, max_positions=512, device="cpu",
                            dtype="float32", memory_bytes=1)
    panel.set_info(minilm_like)
    assert not panel.words_check.isVisible()
    panel.set_info(window.loaded.info)
    assert panel.words_check.isVisible() and not panel.words_check.isChecked()
    panel.set_info(None)
    assert not panel.words_check.isVisible()

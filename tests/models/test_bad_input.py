"""Bad models, texts and files get a clear, one-line error."""

from __future__ import annotations

import shutil
import struct
import time

import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.errors import (
    EmptyTextError, InsufficientMemoryError, ModelFormatError, ModelNotFoundError, TextEncodingError,
)
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.text_input import read_text_file
from tests.support.huge_model import sparse_huge_model


def copy_model(tiny_models, kind, tmp_path):
    return shutil.copytree(tiny_models[kind], tmp_path / kind)


def test_empty_text(minilm):
    for text in ("", "   \n\t "):
        with pytest.raises(EmptyTextError, match="empty"):
            encode(minilm, text)


def test_missing_folder(tmp_path):
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        load_model(str(tmp_path / "no-such-model"))


def test_folder_without_config(tmp_path):
    (tmp_path / "empty-model").mkdir()
    with pytest.raises(ModelFormatError, match="no config.json"):
        load_model(str(tmp_path / "empty-model"))


def test_folder_with_config_but_no_weights(tiny_models, tmp_path):
    folder = copy_model(tiny_models, "bert", tmp_path)
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelFormatError, match="no weights"):
        load_model(str(folder))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "bad-header"])
def test_corrupt_weights(tiny_models, tmp_path, damage):
    folder = copy_model(tiny_models, "gpt2", tmp_path)
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    if damage == "garbage":
        weights.write_bytes(b"\x00\xff" * 1000)
    elif damage == "truncated":
        weights.write_bytes(data[: len(data) // 2])
    else:
        (n,) = struct.unpack("<Q", data[:8])
        weights.write_bytes(data[:8] + b"{" * n + data[8 + n:])
    with pytest.raises(ModelFormatError, match="corrupt weights file model.safetensors"):
        load_model(str(folder))


def test_pickle_only_weights_refused_unless_allowed(tiny_models, tmp_path):
    folder = copy_model(tiny_models, "gpt2", tmp_path)
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(b"not even a pickle")
    with pytest.raises(ModelFormatError, match="pickle"):
        load_model(str(folder))


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café au lait".encode("latin-1"))
    with pytest.raises(TextEncodingError, match=r"not UTF-8 text \(byte 3, line 1: 0xe9"):
        read_text_file(path)


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffhello".encode("utf-8"))
    assert read_text_file(path) == "hello"


def test_text_longer_than_window_is_truncated_and_says_so(tiny_models):
    loaded = load_model(str(tiny_models["bert"]))
    window = loaded.info.max_positions
    text = " ".join(["statement"] * (3 * window))
    result = encode(loaded, text)
    assert len(result.tokens) == window
    assert result.hidden_states.shape[1] == window
    assert result.tokenized.truncated
    assert result.tokens[-1] == "[SEP]"  # special tokens survive truncation
    assert f"{result.tokenized.full_length} tokens" in result.tokenized.truncation_message
    assert result.tokenized.full_length > window


def test_uncached_hub_id_offline_fails_fast_naming_id_and_cache():
    start = time.monotonic()
    with pytest.raises(ModelNotFoundError) as info:
        load_model("some-org/not-a-cached-model")
    assert time.monotonic() - start < 5.0
    message = str(info.value)
    assert "some-org/not-a-cached-model" in message
    from huggingface_hub import constants

    assert str(constants.HF_HUB_CACHE) in message


def test_model_too_large_for_memory_is_refused_before_loading(tmp_path):
    sparse_huge_model(tmp_path / "huge")
    start = time.monotonic()
    with pytest.raises(InsufficientMemoryError, match=r"needs about .*GiB.* only .* free"):
        load_model(str(tmp_path / "huge"))
    assert time.monotonic() - start < 5.0


def test_memory_check_uses_available_memory(tiny_models):
    with pytest.raises(InsufficientMemoryError):
        load_model(str(tiny_models["bert"]), available=10_000)
    assert load_model(str(tiny_models["bert"]), available=10**10).info.parameters > 0

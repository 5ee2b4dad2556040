"""An encoder-decoder whose output ids include one its tokenizer has no name for (T5's config holds 28 more ids
than its tokenizer): the decoder's tokens name it by its number instead of None, which crashed the lens grid's
headers on a random-weight BART at a real size."""

from __future__ import annotations

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.loading import load_source as load_model


def test_a_decoder_token_with_no_name_is_its_number(tiny_models, monkeypatch):
    loaded = load_model(str(tiny_models["bart"]))
    real = loaded.tokenizer.convert_ids_to_tokens

    def no_names(ids, *args, **kwargs):  # a tokenizer that names none of the decoder's ids (lists of ids only)
        return [None] * len(ids) if isinstance(ids, list) else real(ids, *args, **kwargs)

    encoder_tokens = encode(loaded, "the cat sat").tokenized.tokens  # named before the patch
    monkeypatch.setattr(loaded.tokenizer, "convert_ids_to_tokens", no_names)
    decoder = encode(loaded, "the cat sat").decoder
    assert decoder is not None and len(decoder.ids) > 0
    assert decoder.tokens == [str(int(i)) for i in decoder.ids]
    assert encoder_tokens and all(isinstance(t, str) for t in encoder_tokens)

"""Model families, detected from a ``transformers`` config.

encoder: BERT, RoBERTa, DistilBERT, ALBERT, ELECTRA, ...
decoder: GPT-2, GPT-Neo, Llama-style, ...
encoder-decoder: BART, T5, ...
biLM: ELMo (two LSTM language models, no attention; engine/elmo, not a transformers config)
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class Family(str, Enum):
    ENCODER = "encoder"
    DECODER = "decoder"
    ENCODER_DECODER = "encoder-decoder"
    BILM = "biLM"


ENCODER_TYPES = {
    "bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "deberta",
    "deberta-v2", "camembert", "mpnet", "modernbert", "megatron-bert", "ernie",
}
DECODER_TYPES = {
    "gpt2", "gpt_neo", "gptj", "gpt_neox", "llama", "mistral", "qwen2", "qwen3",
    "phi", "phi3", "gemma", "gemma2", "opt", "bloom", "falcon", "olmo", "smollm3",
}
ENCODER_DECODER_TYPES = {"bart", "mbart", "t5", "mt5", "pegasus", "marian", "led"}


def detect_family(config: Any) -> Family:
    """Family from a config object; raises ValueError for what is not a text LM."""
    model_type = getattr(config, "model_type", "") or ""
    if getattr(config, "is_encoder_decoder", False) or model_type in ENCODER_DECODER_TYPES:
        return Family.ENCODER_DECODER
    if model_type in DECODER_TYPES:
        return Family.DECODER
    if model_type in ENCODER_TYPES:
        return Family.ENCODER
    architectures = getattr(config, "architectures", None) or []
    if any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures):
        return Family.DECODER
    if any(a.endswith(("ForConditionalGeneration", "ForSeq2SeqLM")) for a in architectures):
        return Family.ENCODER_DECODER
    if getattr(config, "is_decoder", False):
        return Family.DECODER
    if any(a.endswith(("ForMaskedLM", "ForPreTraining", "Model")) for a in architectures):
        return Family.ENCODER
    raise ValueError(f"model type {model_type!r} is not a text encoder, decoder or encoder-decoder")


def _first_int(config: Any, names: tuple[str, ...]) -> int | None:
    """The first of ``names`` that ``config`` holds as an int (configs name the same size differently)."""
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int):
            return value
    return None


def _required(value: int | None, what: str) -> int:
    if value is None:
        raise ValueError(f"config names no {what}")
    return value


def num_layers(config: Any) -> int:
    return _required(_first_int(config, ("num_hidden_layers", "n_layer", "num_layers", "encoder_layers")),
                     "layer count")


def num_decoder_layers(config: Any) -> int:
    found = _first_int(config, ("num_decoder_layers", "decoder_layers"))
    return num_layers(config) if found is None else found


def num_heads(config: Any) -> int:
    return _required(_first_int(config, ("num_attention_heads", "n_head", "num_heads", "encoder_attention_heads")),
                     "head count")


def hidden_size(config: Any) -> int:
    return _required(_first_int(config, ("hidden_size", "n_embd", "d_model", "dim")), "hidden size")


def max_positions(config: Any, tokenizer_max: int | None = None) -> int | None:
    """The model's window in tokens (None when the architecture has no limit)."""
    for name in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            if tokenizer_max and 0 < tokenizer_max < value:
                return tokenizer_max
            return value
    if tokenizer_max and 0 < tokenizer_max < 1_000_000:
        return tokenizer_max
    return None

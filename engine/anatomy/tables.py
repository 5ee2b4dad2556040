"""Where each model family keeps its parts: the one table of attribute names (issue 43.2). No torch here:
the fine-tuning names read these tables before any model is loaded.

Every other module asks by role; only this package names a family's projections, sublayers and norms. Per
stack, the candidates are tried in order and the first that every block has wins (so GPT-2 before Llama-style,
BART before T5):

- GPT-2: blocks ``h``; attention output ``attn``; MLP output ``mlp``; final norm ``ln_f``;
- Llama-style: ``layers``; ``self_attn``; ``mlp``; ``norm``;
- BERT-style: ``encoder.layer``; ``attention.output.dense``; ``output.dense``; none (post-norm);
- DistilBERT: ``transformer.layer``; ``attention.out_lin``; ``ffn.lin2``; none (post-norm);
- BART (each stack): ``layers``; ``self_attn``; ``fc2``; ``layer_norm`` (pre-norm variants only);
- T5 (each stack): ``block``; ``layer.0.SelfAttention``; ``layer.-1.DenseReluDense``; ``final_layer_norm``.

The per-head projection (its input holds the heads, concatenated: TransformerLens's ``hook_z``) is GPT-2's
``attn.c_proj``, Llama's ``self_attn.o_proj``, BERT's ``attention.output.dense``, BART's ``out_proj`` and T5's
``SelfAttention.o``; an encoder-decoder's decoder also has a cross-attention (BART ``encoder_attn``, T5
``layer.1.EncDecAttention``). ``.-1.`` in a path means "the last of that list" (T5's MLP is the block's last
layer: the encoder's ``layer[1]``, the decoder's ``layer[2]``).
"""

from __future__ import annotations

# --- decoder-only models and encoders (masked LMs): paths from ``loaded.base_model`` --------------------------
BLOCK_LISTS = ("h", "layers", "encoder.layer", "transformer.layer", "decoder.layers", "gpt_neox.layers")
ATTENTION_OUTPUTS = ("attn", "self_attn", "attention.output.dense", "attention.out_lin", "attention")
MLP_OUTPUTS = ("mlp", "output.dense", "ffn.lin2", "feed_forward")
DECODER_FINAL_NORMS = ("ln_f", "norm", "final_layernorm", "final_layer_norm", "decoder.final_layer_norm")

# heads and direct logit attribution: (blocks, per-head projection, MLP output projection, final norm)
DECODER_HEAD_LAYOUTS = (("h", "attn.c_proj", "mlp.c_proj", "ln_f"),
                        ("layers", "self_attn.o_proj", "mlp.down_proj", "norm"))
ENCODER_HEAD_LAYOUT = ("encoder.layer", "attention.output.dense", "output.dense")

# --- encoder-decoders (BART, T5): paths inside one block of a stack, BART's first, then T5's ------------------
STACK_BLOCK_LISTS = ("layers", "block")
IN_BLOCK = {
    "attn": ("self_attn", "layer.0.SelfAttention"),
    "cross-attn": ("encoder_attn", "layer.1.EncDecAttention"),
    "mlp": ("fc2", "layer.-1.DenseReluDense"),
}
IN_BLOCK_PROJECTION = {  # the per-head projection inside the module above (its input is hook_z)
    "attn": ("self_attn.out_proj", "layer.0.SelfAttention.o"),
    "cross-attn": ("encoder_attn.out_proj", "layer.1.EncDecAttention.o"),
    "mlp": ("fc2", "layer.-1.DenseReluDense.wo"),
}
STACK_FINAL_NORMS = ("final_layer_norm", "layer_norm")  # T5's, then pre-norm BART's

# --- masked-LM heads (from the model, not its base) --------------------------------------------------------
MLM_HEADS = ("cls", "lm_head", "predictions")
LOGITS_BIAS = "final_logits_bias"  # BART: a bias added to the logits after the tied unembedding

# --- fine-tuning: LoRA targets, the diagram's sites, IA³'s FFN matrix --------------------------------------
# LoRA's roles "query", "key" and "value" also find the other families' names for them (GPT-2's fused c_attn).
LORA_ROLE_ALIASES = {
    "query": ("q_proj", "q", "query_proj", "q_lin", "c_attn"),
    "key": ("k_proj", "k", "key_proj", "k_lin", "c_attn"),
    "value": ("v_proj", "v", "value_proj", "v_lin", "c_attn"),
}
# Which block sites a LoRA target name stands for, for the diagram (names from BERT, GPT-2, BART, T5, DistilBERT).
LORA_SITES_OF_TARGET = {
    **{name: (role,) for role, aliases in LORA_ROLE_ALIASES.items() for name in (role, *aliases)},
    "c_attn": ("query", "key", "value"),
    "attention.output.dense": ("attention_output",), "out_proj": ("attention_output",), "o": ("attention_output",),
    "out_lin": ("attention_output",), "attn.c_proj": ("attention_output",),
    "intermediate.dense": ("ffn_in",), "fc1": ("ffn_in",), "wi": ("ffn_in",), "c_fc": ("ffn_in",),
    "lin1": ("ffn_in",),
    "fc2": ("ffn_out",), "wo": ("ffn_out",), "mlp.c_proj": ("ffn_out",), "lin2": ("ffn_out",),
    "output.dense": ("attention_output", "ffn_out"), "c_proj": ("attention_output", "ffn_out"),
    "dense": ("attention_output", "ffn_in", "ffn_out"),
}
# model_type -> the one matrix that computes queries, keys and values together
FUSED_QKV = {"gpt2": "c_attn", "gpt_bigcode": "c_attn", "gpt_neox": "query_key_value", "falcon": "query_key_value",
             "bloom": "query_key_value", "phi3": "qkv_proj"}
# The feed-forward block's second matrix, by family (its input is the FFN's inner activation IA³ rescales).
FFN_OUT_TAILS = ("mlp.c_proj", "fc2", "DenseReluDense.wo", "down_proj", "ffn.lin2")
BERT_FFN_OUT = "output.dense"
BERT_ATTENTION_OUT = "attention.output.dense"
FFN_OUT_NAMES = (BERT_FFN_OUT,) + FFN_OUT_TAILS  # for messages: every name ``ffn_out_layer_names`` knows


def ffn_out_layer_names(names: list[str]) -> list[str]:
    """Of full module names, those of the feed-forward blocks' second matrices (BERT's output.dense, GPT-2's
    mlp.c_proj, BART's fc2, T5's DenseReluDense.wo, Llama's down_proj, DistilBERT's ffn.lin2)."""
    out = []
    for name in names:
        bert_ffn = name.endswith("." + BERT_FFN_OUT) and not name.endswith(BERT_ATTENTION_OUT)
        if bert_ffn or any(name.endswith("." + tail) for tail in FFN_OUT_TAILS):
            out.append(name)
    return out


def is_norm_parameter(name: str) -> bool:
    """Whether a parameter's full name is a norm's (BERT ``LayerNorm``, BART/T5 ``layer_norm``, ``*norm.weight``)."""
    return "LayerNorm" in name or "layer_norm" in name or name.endswith("norm.weight")


# --- the attention walkthrough: (blocks, the attention module with its Q, K, V projections) --------------------
WALKTHROUGH = {"bert": ("encoder.layer", "attention.self"), "gpt2": ("h", "attn")}
BERT_QKV = ("query", "key", "value")  # BERT-family self-attention's three linear layers

# --- hook_pattern: the module whose tuple output holds the attention probabilities, and where ------------------
PATTERN_MODULES = ("attn", "self_attn", "attention.self", "attention")  # decoder-only models and encoders
STACK_PATTERN_MODULES = {"attn": ("self_attn", "layer.0.SelfAttention"),
                         "cross-attn": ("encoder_attn", "layer.1.EncDecAttention")}
T5_ATTENTION_KIND = "T5Attention"  # returns (output, position_bias, weights): the weights are element 2

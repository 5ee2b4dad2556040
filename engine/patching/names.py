"""Patching's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

SITES = ("resid", "attn", "mlp")  # a block's output, its attention's output, its MLP's output
DEFAULT_SITE = "resid"
DEFAULT_NOISE_SCALE = 3.0  # ROME's corruption: noise std = 3 x the embeddings' std
DEFAULT_NOISE_SAMPLES = 10  # noise draws averaged

# Encoder-decoders (BART, T5): resid, attn and mlp are the decoder's (its block's output, its self-attention's
# output, its MLP's output; columns: the decoder's tokens), cross-attn its cross-attention's output; the enc-
# sites are the encoder's block, self-attention and MLP outputs (columns: the encoder's input tokens).
ENCODER_SITES = ("enc-resid", "enc-attn", "enc-mlp")
CROSS_ATTENTION = "cross-attn"
ENCODER_DECODER_SITES = ("enc-resid", "enc-attn", "enc-mlp", "resid", "attn", "cross-attn", "mlp")
ALL_SITES = SITES + ENCODER_SITES + (CROSS_ATTENTION,)  # what ``patch --site`` accepts


def sites_for(family: str) -> tuple[str, ...]:
    """The sites a model of ``family`` (an ``lm_workbench.engine.models.families.Family`` value) has."""
    return ENCODER_DECODER_SITES if family == "encoder-decoder" else SITES


def is_encoder_site(site: str) -> bool:
    """Whether the site's columns are an encoder-decoder's encoder tokens (else the decoder's, or the text's)."""
    return site in ENCODER_SITES


"""Encoder-decoders (BART, T5) in activation patching: the sites, and the corrupted run's decoder.

Sites (``names.ENCODER_DECODER_SITES``), one module per layer of its stack (found by
``lm_workbench.engine.anatomy``), each module's output patched:

- ``enc-resid``: encoder block l's output (BART ``encoder.layers[l]``, T5 ``encoder.block[l]``; T5's before the
  encoder's final norm); columns are the encoder's input tokens;
- ``enc-attn`` / ``enc-mlp``: that block's self-attention output (BART ``self_attn`` after ``out_proj``, T5
  ``layer[0].SelfAttention`` after ``o``) and MLP output (BART ``fc2``, T5 ``DenseReluDense`` after ``wo``), before
  dropout and the residual add;
- ``resid``, ``attn``, ``mlp``: the decoder's block output, self-attention output and MLP output, as above for
  the decoder's blocks (BART ``decoder.layers[l]``, T5 ``decoder.block[l]``); columns are the decoder's tokens;
- ``cross-attn``: the decoder's cross-attention output (BART ``encoder_attn`` after ``out_proj``, T5
  ``layer[1].EncDecAttention`` after ``o``).

The metric is read where Explain reads an encoder-decoder's prediction (``lm_workbench.engine.logit_target``): at the
decoder's output position p, the decoder reading its start token and the clean run's own greedy output before
p. The corrupted run decodes that same prefix (teacher-forced with the clean output): only the encoder's input
differs, so every decoder column is the same token in both runs.
"""

from __future__ import annotations

from dataclasses import replace

from lm_workbench.engine.logit_target.target import PredictionSite, prediction_site, token_name
from lm_workbench.engine.models.loading import LoadedModel


def corrupted_site(loaded: LoadedModel, clean: PredictionSite, text: str, what: str) -> PredictionSite:
    """The corrupted text's site reading the clean run's decoder prefix: its own encoder input, the clean
    run's output position and decoder input ids (start token and the clean greedy output before it)."""
    own = prediction_site(loaded, text, what, 0)  # position 0: no decoding of the corrupted text's own output
    return replace(own, position=clean.position, decoder_ids=clean.decoder_ids)


def decoder_tokens(loaded: LoadedModel, site: PredictionSite) -> list[str]:
    """The decoder's input tokens at ``site``: its start token and the output tokens before the position."""
    return [token_name(loaded, int(i)) for i in site.decoder_ids[0].tolist()]

"""Encoder-decoders (BART, T5) in activation patching: where each site is, and the corrupted run's decoder.

Sites (``names.ENCODER_DECODER_SITES``), one module per layer of its stack, each module's output patched:

- ``enc-resid``: encoder block l's output (BART ``encoder.layers[l]``, T5 ``encoder.block[l]``; T5's before the
  encoder's final norm); columns are the encoder's input tokens;
- ``enc-attn`` / ``enc-mlp``: that block's self-attention output (BART ``self_attn`` after ``out_proj``, T5
  ``layer[0].SelfAttention`` after ``o``) and MLP output (BART ``fc2``, T5 ``DenseReluDense`` after ``wo``), before
  dropout and the residual add;
- ``resid``, ``attn``, ``mlp``: the decoder's block output, self-attention output and MLP output, as above for
  the decoder's blocks (BART ``decoder.layers[l]``, T5 ``decoder.block[l]``); columns are the decoder's tokens;
- ``cross-attn``: the decoder's cross-attention output (BART ``encoder_attn`` after ``out_proj``, T5
  ``layer[1].EncDecAttention`` after ``o``).

The metric is read where Explain reads an encoder-decoder's prediction (``lm_workbench.engine.attribution.targets``): at the
decoder's output position p, the decoder reading its start token and the clean run's own greedy output before
p. The corrupted run decodes that same prefix (teacher-forced with the clean output): only the encoder's input
differs, so every decoder column is the same token in both runs.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from lm_workbench.engine.attribution.targets import PredictionSite, prediction_site, token_name
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_lens import submodule
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.names import CROSS_ATTENTION, ENCODER_DECODER_SITES, is_encoder_site

# per site: where the module is inside a block, BART's name first, then T5's
_IN_BLOCK = {
    "attn": ("self_attn", "layer.0.SelfAttention"),
    CROSS_ATTENTION: ("encoder_attn", "layer.1.EncDecAttention"),
    "mlp": ("fc2", "layer.-1.DenseReluDense"),
}


def stack_blocks(loaded: LoadedModel, encoder: bool) -> list[torch.nn.Module]:
    """The encoder's (``encoder``) or the decoder's blocks, lowest first."""
    stack = loaded.model.get_encoder() if encoder else loaded.model.get_decoder()
    for name in ("layers", "block"):  # BART, T5
        blocks = getattr(stack, name, None)
        if isinstance(blocks, torch.nn.ModuleList) and len(blocks):
            return list(blocks)
    raise WorkbenchError(f"activation patching does not know where the {'encoder' if encoder else 'decoder'} "
                         f"blocks of {loaded.info.model_type} models are (it knows BART and T5)")


def _inside(block: torch.nn.Module, path: str) -> torch.nn.Module | None:
    if ".-1." in path:  # T5's MLP is the block's last layer (the encoder's layer[1], the decoder's layer[2])
        head, tail = path.split(".-1.")
        layers = submodule(block, head)
        return submodule(layers[-1], tail) if isinstance(layers, torch.nn.ModuleList) and len(layers) else None
    return submodule(block, path)


def encoder_decoder_site_modules(loaded: LoadedModel, site: str) -> list[torch.nn.Module]:
    """One module per layer whose output is ``site`` (one of ``names.ENCODER_DECODER_SITES``) at that layer."""
    if site not in ENCODER_DECODER_SITES:
        raise WorkbenchError(f"the site is one of {', '.join(ENCODER_DECODER_SITES)}, not {site!r}")
    encoder = is_encoder_site(site)
    blocks = stack_blocks(loaded, encoder)
    kind = site.removeprefix("enc-")
    if kind == "resid":
        return blocks
    for path in _IN_BLOCK[kind]:
        modules = [_inside(block, path) for block in blocks]
        if all(isinstance(m, torch.nn.Module) for m in modules):
            return modules
    raise WorkbenchError(f"activation patching does not know the {site} output of {loaded.info.model_type} blocks")


def corrupted_site(loaded: LoadedModel, clean: PredictionSite, text: str, what: str) -> PredictionSite:
    """The corrupted text's site reading the clean run's decoder prefix: its own encoder input, the clean
    run's output position and decoder input ids (start token and the clean greedy output before it)."""
    own = prediction_site(loaded, text, what, 0)  # position 0: no decoding of the corrupted text's own output
    return replace(own, position=clean.position, decoder_ids=clean.decoder_ids)


def decoder_tokens(loaded: LoadedModel, site: PredictionSite) -> list[str]:
    """The decoder's input tokens at ``site``: its start token and the output tokens before the position."""
    return [token_name(loaded, int(i)) for i in site.decoder_ids[0].tolist()]

"""Where a patch goes: per layer, the module whose output is the site.

The sites are hook points of ``lm_workbench.engine.anatomy`` (which names each family's modules):

- ``resid``: the transformer block itself; its output is the residual stream after block l (before any
  final layer norm): ``blocks.{l}.hook_resid_post``;
- ``attn``: the attention's output before it is added to the residual stream (``blocks.{l}.hook_attn_out``;
  BERT's before its dropout, residual add and LayerNorm);
- ``mlp``: the MLP's output before the residual add (``blocks.{l}.hook_mlp_out``).

Encoder-decoders (BART, T5) have their own sites, the decoder's ``resid``, ``attn``, ``mlp`` and ``cross-attn`` and
the encoder's ``enc-resid``, ``enc-attn``, ``enc-mlp`` (``encoder_decoder``); their ``transformer_blocks`` are the
encoder's. A decoder-only model or a masked LM asked for an encoder-decoder's site gets a one-line error.

A module that returns a tuple (attention modules return their weights too) has its first element patched; the
hooks are ``lm_workbench.engine.anatomy.hooks``'.
"""

from __future__ import annotations

import torch

from lm_workbench.engine.anatomy.hooks import recording, recording_inputs, replacing, replacing_input
from lm_workbench.engine.anatomy.points import layer_modules
from lm_workbench.engine.anatomy.points import transformer_blocks as _blocks
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.names import ALL_SITES, is_encoder_site, sites_for

__all__ = ["check_site", "recording", "recording_inputs", "replacing", "replacing_input", "site_modules",
           "transformer_blocks"]


def transformer_blocks(loaded: LoadedModel) -> list[torch.nn.Module]:
    """The model's transformer blocks, lowest first (an encoder-decoder's: its encoder's)."""
    return _blocks(loaded, "activation patching")


def site_modules(loaded: LoadedModel, site: str) -> list[torch.nn.Module]:
    """One module per layer whose output is ``site`` (one of ``names.sites_for`` the model's family) at that
    layer."""
    check_site(loaded, site)
    if loaded.family is Family.ENCODER_DECODER:
        stack = "encoder" if is_encoder_site(site) else "decoder"
        return layer_modules(loaded, site.removeprefix("enc-"), stack)
    return layer_modules(loaded, site)


def check_site(loaded: LoadedModel, site: str) -> None:
    """A one-line error unless ``loaded`` has ``site``: an encoder-decoder's site asked of another family, or
    a name no family has."""
    own = sites_for(loaded.family.value)
    if site in own:
        return
    if site in ALL_SITES:
        raise WorkbenchError(f"the site {site} is an encoder-decoder's (BART, T5); {loaded.info.spec} is "
                             f"{'an' if loaded.family.value[0] in 'ae' else 'a'} {loaded.family.value} model, whose "
                             f"sites are {', '.join(own)}")
    raise WorkbenchError(f"the site is one of {', '.join(own)}, not {site!r}")

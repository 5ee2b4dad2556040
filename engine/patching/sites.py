"""Where a patch goes: per layer, the module whose output is the site.

- ``resid``: the transformer block itself; its output is the residual stream after block l (before any
  final layer norm): GPT-2's ``h[l]``, Llama-style ``layers[l]``, BERT-family ``encoder.layer[l]``;
- ``attn``: the attention's output before it is added to the residual stream: GPT-2's ``attn`` (after
  ``c_proj``), Llama-style ``self_attn`` (after ``o_proj``), BERT's ``attention.output.dense`` (before its
  dropout, residual add and LayerNorm);
- ``mlp``: the MLP's output before the residual add: GPT-2's and Llama's ``mlp``, BERT's ``output.dense``.

Encoder-decoders (BART, T5) have their own sites, the decoder's ``resid``, ``attn``, ``mlp`` and ``cross-attn`` and
the encoder's ``enc-resid``, ``enc-attn``, ``enc-mlp`` (``encoder_decoder``); their ``transformer_blocks`` are the
encoder's. A decoder-only model or a masked LM asked for an encoder-decoder's site gets a one-line error.

A module that returns a tuple (attention modules return their weights too) has its first element patched.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_lens import submodule
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.encoder_decoder import encoder_decoder_site_modules, stack_blocks
from lm_workbench.engine.patching.names import ALL_SITES, sites_for

_BLOCK_LISTS = ("h", "layers", "encoder.layer", "transformer.layer", "decoder.layers", "gpt_neox.layers")
_ATTENTION_OUTPUTS = ("attn", "self_attn", "attention.output.dense", "attention.out_lin", "attention")
_MLP_OUTPUTS = ("mlp", "output.dense", "ffn.lin2", "feed_forward")


def transformer_blocks(loaded: LoadedModel) -> list[torch.nn.Module]:
    """The model's transformer blocks, lowest first (an encoder-decoder's: its encoder's)."""
    if loaded.family is Family.ENCODER_DECODER:
        return stack_blocks(loaded, encoder=True)
    base = loaded.base_model
    for name in _BLOCK_LISTS:
        blocks = submodule(base, name)
        if isinstance(blocks, torch.nn.ModuleList) and len(blocks):
            return list(blocks)
    raise WorkbenchError(f"activation patching does not know where the blocks of {loaded.info.model_type} models are")


def site_modules(loaded: LoadedModel, site: str) -> list[torch.nn.Module]:
    """One module per layer whose output is ``site`` (one of ``names.sites_for`` the model's family) at that
    layer."""
    check_site(loaded, site)
    if loaded.family is Family.ENCODER_DECODER:
        return encoder_decoder_site_modules(loaded, site)
    blocks = transformer_blocks(loaded)
    if site == "resid":
        return blocks
    names = _ATTENTION_OUTPUTS if site == "attn" else _MLP_OUTPUTS
    for name in names:
        modules = [submodule(block, name) for block in blocks]
        if all(isinstance(m, torch.nn.Module) for m in modules):
            return modules
    raise WorkbenchError(f"activation patching does not know the {site} output of {loaded.info.model_type} blocks")


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


def _first(output: Any) -> torch.Tensor:
    return output[0] if isinstance(output, tuple) else output


def _with_first(output: Any, first: torch.Tensor) -> Any:
    return (first, *output[1:]) if isinstance(output, tuple) else first


@contextmanager
def recording(modules: list[torch.nn.Module]) -> Iterator[list[torch.Tensor]]:
    """Within the block, each forward pass appends to the yielded list (in module order) a copy of every
    module's output [B, T, H]."""
    kept: list[torch.Tensor] = []

    def keep(_module, _inputs, output):
        kept.append(_first(output).detach().clone())

    handles = [m.register_forward_hook(keep) for m in modules]
    try:
        yield kept
    finally:
        for handle in handles:
            handle.remove()


def _hidden_states(args: tuple, kwargs: dict) -> tuple[torch.Tensor, bool]:
    """A block's input hidden states [B, T, H] and whether they came as a keyword."""
    if args:
        return args[0], False
    return kwargs["hidden_states"], True


@contextmanager
def recording_inputs(blocks: list[torch.nn.Module]) -> Iterator[list[torch.Tensor]]:
    """Within the block, each forward pass appends to the yielded list (in block order) a copy of every block's
    input hidden states [B, T, H] (the residual stream entering it)."""
    kept: list[torch.Tensor] = []

    def keep(_module, args, kwargs):
        kept.append(_hidden_states(args, kwargs)[0].detach().clone())

    handles = [b.register_forward_pre_hook(keep, with_kwargs=True) for b in blocks]
    try:
        yield kept
    finally:
        for handle in handles:
            handle.remove()


@contextmanager
def replacing_input(block: torch.nn.Module, patch: Callable[[torch.Tensor], torch.Tensor]) -> Iterator[None]:
    """Within the block, ``block``'s input hidden states [B, T, H] are replaced by ``patch(hidden)``."""
    def hook(_module, args, kwargs):
        hidden, keyword = _hidden_states(args, kwargs)
        if keyword:
            return args, {**kwargs, "hidden_states": patch(hidden)}
        return (patch(hidden), *args[1:]), kwargs

    handle = block.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        yield
    finally:
        handle.remove()


@contextmanager
def replacing(module: torch.nn.Module, patch: Callable[[torch.Tensor], torch.Tensor]) -> Iterator[None]:
    """Within the block, ``module``'s output [B, T, H] is replaced by ``patch(output)``."""
    def hook(_module, _inputs, output):
        return _with_first(output, patch(_first(output)))

    handle = module.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()

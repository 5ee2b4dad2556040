"""Hook points by name, in TransformerLens's vocabulary, for a loaded model of any family this package knows.

Names (``l`` a block index from 0; every name a (module, input or output) pair, ``HookSite``):

- ``hook_embed``: the token embedding's output [B, T, H];
- ``blocks.{l}.hook_resid_pre``: block l's input (the residual stream entering it) [B, T, H];
- ``blocks.{l}.hook_resid_post``: block l's output [B, T, H] (before any final norm);
- ``blocks.{l}.attn.hook_z``: the heads' outputs, concatenated [B, T, heads·d_head]: the per-head
  projection's input;
- ``blocks.{l}.attn.hook_pattern``: the attention probabilities [B, heads, T, T] (an element of the attention
  module's output; only filled with eager attention and ``output_attentions=True``);
- ``blocks.{l}.hook_attn_out`` / ``blocks.{l}.hook_mlp_out``: the attention's and the MLP's output before the
  residual add [B, T, H];
- ``ln_final``: the final norm's output (pre-norm families); ``unembed``: the logits [B, T, vocab].

Encoder-decoders (BART, T5) prefix each with its stack, ``encoder.`` or ``decoder.``, and the decoder's blocks
add ``decoder.blocks.{l}.cross_attn.hook_z``, ``….cross_attn.hook_pattern`` and ``….hook_cross_attn_out``.
Activation patching's sites are these points: ``resid`` = ``hook_resid_post``, ``attn`` = ``hook_attn_out``,
``mlp`` = ``hook_mlp_out``, ``cross-attn`` = ``decoder.blocks.{l}.hook_cross_attn_out``, ``enc-*`` the encoder's.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch

from lm_workbench.engine.anatomy import hooks, tables
from lm_workbench.engine.anatomy.lookup import first_module, per_block, submodule
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family

_BLOCK_POINTS = ("hook_resid_pre", "hook_resid_post", "attn.hook_z", "attn.hook_pattern", "hook_attn_out",
                 "hook_mlp_out")
_CROSS_POINTS = ("cross_attn.hook_z", "cross_attn.hook_pattern", "hook_cross_attn_out")
_NAME = re.compile(r"^(?:(encoder|decoder)\.)?(?:blocks\.(\d+)\.)?([\w.]+)$")


def _family(loaded: Any) -> Family:
    return loaded.family


# activation patching's sites (lm_workbench.engine.patching.names) as hook points; "{stack}" is "" for a model
# with one stack, "encoder." or "decoder." for an encoder-decoder
SITE_POINTS = {
    "resid": "{stack}blocks.{layer}.hook_resid_post", "attn": "{stack}blocks.{layer}.hook_attn_out",
    "mlp": "{stack}blocks.{layer}.hook_mlp_out", "cross-attn": "decoder.blocks.{layer}.hook_cross_attn_out",
    "enc-resid": "encoder.blocks.{layer}.hook_resid_post", "enc-attn": "encoder.blocks.{layer}.hook_attn_out",
    "enc-mlp": "encoder.blocks.{layer}.hook_mlp_out",
}


def site_point(loaded: Any, site: str, layer: int) -> str:
    """The hook point of patching's ``site`` at block ``layer`` (``resid`` at 2: ``blocks.2.hook_resid_post``;
    an encoder-decoder's ``resid`` is its decoder's)."""
    stack = "decoder." if _family(loaded) is Family.ENCODER_DECODER else ""
    return SITE_POINTS[site].format(stack=stack, layer=layer)


def stack_blocks(loaded: Any, encoder: bool, what: str = "activation patching") -> list[torch.nn.Module]:
    """An encoder-decoder's encoder (``encoder``) or decoder blocks, lowest first."""
    stack = loaded.model.get_encoder() if encoder else loaded.model.get_decoder()
    for name in tables.STACK_BLOCK_LISTS:
        blocks = getattr(stack, name, None)
        if isinstance(blocks, torch.nn.ModuleList) and len(blocks):
            return list(blocks)
    raise WorkbenchError(f"{what} does not know where the {'encoder' if encoder else 'decoder'} "
                         f"blocks of {loaded.info.model_type} models are (it knows BART and T5)")


def transformer_blocks(loaded: Any, what: str = "activation patching") -> list[torch.nn.Module]:
    """The model's transformer blocks, lowest first (an encoder-decoder's: its encoder's)."""
    if _family(loaded) is Family.ENCODER_DECODER:
        return stack_blocks(loaded, encoder=True, what=what)
    base = loaded.base_model
    for name in tables.BLOCK_LISTS:
        blocks = submodule(base, name)
        if isinstance(blocks, torch.nn.ModuleList) and len(blocks):
            return list(blocks)
    raise WorkbenchError(f"{what} does not know where the blocks of {loaded.info.model_type} models are")


def blocks_of(loaded: Any, stack: str | None) -> list[torch.nn.Module]:
    """The blocks of ``stack`` ("encoder", "decoder", or None for a model with one stack)."""
    if _family(loaded) is Family.ENCODER_DECODER:
        return stack_blocks(loaded, encoder=stack == "encoder")
    return transformer_blocks(loaded)


def layer_modules(loaded: Any, kind: str, stack: str | None = None) -> list[torch.nn.Module]:
    """One module per block whose output is ``kind`` ("resid", "attn", "mlp"; "cross-attn" in a decoder
    stack) in ``stack``; a one-line error where the family has no such module."""
    blocks = blocks_of(loaded, stack)
    if kind == "resid":
        return blocks
    if _family(loaded) is Family.ENCODER_DECODER:
        found = per_block(blocks, tables.IN_BLOCK.get(kind, ()))
    else:
        found = per_block(blocks, {"attn": tables.ATTENTION_OUTPUTS, "mlp": tables.MLP_OUTPUTS}.get(kind, ()))
    if found is None:
        site = kind if stack != "encoder" else f"enc-{kind}"
        raise WorkbenchError(f"activation patching does not know the {site} output of {loaded.info.model_type} "
                             "blocks")
    return found


def _head_projections(loaded: Any, kind: str, stack: str | None) -> list[torch.nn.Module] | None:
    blocks = blocks_of(loaded, stack)
    if _family(loaded) is Family.ENCODER_DECODER:
        return per_block(blocks, tables.IN_BLOCK_PROJECTION.get(kind, ()))
    paths = tuple(layout[1] for layout in tables.DECODER_HEAD_LAYOUTS) + (tables.ENCODER_HEAD_LAYOUT[1],
                                                                          "attention.out_lin")
    return per_block(blocks, paths)


def _pattern_modules(loaded: Any, kind: str, stack: str | None) -> list[torch.nn.Module] | None:
    blocks = blocks_of(loaded, stack)
    if _family(loaded) is Family.ENCODER_DECODER:
        return per_block(blocks, tables.STACK_PATTERN_MODULES.get(kind, ()))
    return per_block(blocks, tables.PATTERN_MODULES)


def final_norm(loaded: Any, stack: str | None = None) -> torch.nn.Module | None:
    """The norm before the unembedding (a decoder-only model's, or an encoder-decoder stack's), or None."""
    if _family(loaded) is Family.ENCODER_DECODER:
        root = loaded.model.get_encoder() if stack == "encoder" else loaded.model.get_decoder()
        return first_module(root, tables.STACK_FINAL_NORMS)
    if _family(loaded) is Family.DECODER:
        return first_module(loaded.base_model, tables.DECODER_FINAL_NORMS)
    return None


def mlm_head(model: Any) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """A masked LM's head as a function hidden [..., H] -> logits [..., vocab] (its transform and decoder), or
    None where the family is unknown."""
    found = first_module(model, tables.MLM_HEADS)
    if found is not None:
        return found
    if hasattr(model, "vocab_projector"):  # DistilBERT
        return lambda h: model.vocab_projector(model.vocab_layer_norm(model.activation(model.vocab_transform(h))))
    if hasattr(model, "generator_lm_head"):  # ELECTRA generator
        return lambda h: model.generator_lm_head(model.generator_predictions(h))
    return None


def logits_bias(model: Any) -> torch.Tensor | None:
    """A bias added to the logits after the unembedding (BART's ``final_logits_bias`` [1, vocab]), or None."""
    bias = getattr(model, tables.LOGITS_BIAS, None)
    return bias if isinstance(bias, torch.Tensor) else None


@dataclass(frozen=True)
class HookSite:
    """A hook point resolved: ``module``'s ``at`` ("input" or "output"), element ``index`` of a tuple output."""

    name: str
    module: torch.nn.Module
    at: str
    index: int = 0

    @contextmanager
    def keep(self) -> Iterator[list[torch.Tensor]]:
        """Within the block, a detached copy of the value per call of the module."""
        tool = hooks.keeping_inputs([self.module]) if self.at == "input" else hooks.keeping_outputs([self.module],
                                                                                                   self.index)
        with tool as kept:
            yield kept[0]

    def replace(self, change: Callable[[torch.Tensor], torch.Tensor]) -> Any:
        """Within the block, the value x is replaced by ``change(x)`` (first element of a tuple output)."""
        if self.index:
            raise WorkbenchError(f"{self.name} can be read, not replaced")
        if self.at == "input":
            return hooks.replacing_inputs({self.module: change})
        return hooks.replacing_outputs({self.module: change})


def _stacks(loaded: Any) -> tuple[str | None, ...]:
    return ("encoder", "decoder") if _family(loaded) is Family.ENCODER_DECODER else (None,)


def _embedding(loaded: Any, stack: str | None) -> torch.nn.Module | None:
    if stack is None:
        return loaded.model.get_input_embeddings()
    root = loaded.model.get_encoder() if stack == "encoder" else loaded.model.get_decoder()
    return root.get_input_embeddings()


def hook_points(loaded: Any) -> list[str]:
    """Every hook point name of ``loaded`` that resolves, in forward order per stack (see the module doc); a
    one-line error for a model without transformer blocks (ELMo's LSTMs)."""
    if _family(loaded) is Family.BILM:
        raise WorkbenchError(f"{loaded.info.spec} is a biLM (ELMo: LSTMs, no attention): it has no transformer hook "
                             "points")
    names = []
    for stack in _stacks(loaded):
        prefix = f"{stack}." if stack else ""
        names.append(prefix + "hook_embed")
        cross = stack == "decoder"
        for layer in range(len(blocks_of(loaded, stack))):
            points = _BLOCK_POINTS + (_CROSS_POINTS if cross else ())
            names += [f"{prefix}blocks.{layer}.{point}" for point in points]
        if final_norm(loaded, stack) is not None:
            names.append(prefix + "ln_final")
    if loaded.model.get_output_embeddings() is not None:
        names.append("unembed")
    return [name for name in names if _try(loaded, name)]


def _try(loaded: Any, name: str) -> bool:
    try:
        resolve(loaded, name)
    except WorkbenchError:
        return False
    return True


def resolve(loaded: Any, name: str) -> HookSite:
    """The module and side (input or output) of hook point ``name``; a one-line error for an unknown name."""
    match = _NAME.match(name)
    if not match:
        raise WorkbenchError(f"no hook point is called {name!r}")
    stack, layer, point = match.group(1), match.group(2), match.group(3)
    two = _family(loaded) is Family.ENCODER_DECODER
    if name == "unembed":  # one unembedding, also in an encoder-decoder (its decoder's)
        module = loaded.model.get_output_embeddings()
        if module is None:
            raise WorkbenchError(f"{loaded.info.spec} has no output head: no hook point 'unembed'")
        return HookSite(name, module, "output")
    if two != (stack is not None):
        need = "an encoder-decoder names its stack (encoder. or decoder.)" if two else "this model has one stack"
        raise WorkbenchError(f"{name!r}: {need}")
    if layer is None:
        module = {"hook_embed": lambda: _embedding(loaded, stack),
                  "ln_final": lambda: final_norm(loaded, stack)}.get(point, lambda: None)()
        if module is None:
            raise WorkbenchError(f"{loaded.info.model_type} models have no hook point {name!r}")
        return HookSite(name, module, "output")
    index = int(layer)
    blocks = blocks_of(loaded, stack)
    if not 0 <= index < len(blocks):
        raise WorkbenchError(f"{name!r}: blocks are 0..{len(blocks) - 1}")
    if point == "hook_resid_pre":
        return HookSite(name, blocks[index], "input")
    if point == "hook_resid_post":
        return HookSite(name, blocks[index], "output")
    kind = "cross-attn" if point.startswith(("cross_attn.", "hook_cross_attn")) else "attn"
    if kind == "cross-attn" and stack != "decoder":
        raise WorkbenchError(f"{name!r}: only a decoder stack has cross-attention")
    if point in ("hook_attn_out", "hook_cross_attn_out", "hook_mlp_out"):
        return HookSite(name, layer_modules(loaded, "mlp" if point == "hook_mlp_out" else kind, stack)[index],
                        "output")
    if point.endswith(".hook_z"):
        found = _head_projections(loaded, kind, stack)
        if found is not None:
            return HookSite(name, found[index], "input")
    elif point.endswith(".hook_pattern"):
        found = _pattern_modules(loaded, kind, stack)
        if found is not None:
            module = found[index]
            return HookSite(name, module, "output", 2 if type(module).__name__ == tables.T5_ATTENTION_KIND else 1)
    raise WorkbenchError(f"{loaded.info.model_type} models have no hook point {name!r}")

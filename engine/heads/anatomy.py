"""Where a model's attention heads and MLPs write into the residual stream, per family.

Every attention's heads are concatenated (head h owns columns h·d .. h·d + d − 1, d = width / heads) and go
through one output projection (GPT-2 ``attn.c_proj``, Llama-style ``self_attn.o_proj``, T5 ``SelfAttention.o``
and ``EncDecAttention.o``, BART ``out_proj``, BERT ``attention.output.dense``); the projection's input is
where a head's output is read and ablated. Each MLP ends in one projection (``mlp.c_proj``, ``mlp.down_proj``,
``DenseReluDense.wo``, ``fc2``, ``output.dense``); its output (with its bias) is the MLP's output.

``anatomy`` returns the rows (one per attention: a decoder-only or encoder model's layers; for an
encoder-decoder its decoder's self-attention and cross-attention of each layer, as rows of their own), the MLP
projections, the blocks, and for pre-norm families the final norm: ``pre_norm`` says whether the residual
stream is a plain sum of the embeddings and those outputs up to the final norm (GPT-2, Llama-style, the T5
decoder), which is what direct logit attribution needs. Post-norm BERT and BART renormalise the stream after
every sub-layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.anatomy import tables
from lm_workbench.engine.anatomy.points import final_norm
from lm_workbench.engine.anatomy.lookup import first_module, submodule
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel

NOT_A_SUM = ("in {name} (post-norm: a LayerNorm after every attention and MLP rescales the stream) the logit is not a "
             "sum of the heads' and MLPs' outputs, so direct logit attribution does not apply; ablate the heads "
             "instead (lm-workbench ablate; in the window: Heads, Ablate every head)")


class NotASum(WorkbenchError):
    """A post-norm model asked for direct logit attribution: the one line that says why there is none."""


@dataclass(frozen=True)
class HeadRow:
    """One attention of one layer: its name ("3", or "3 self" / "3 cross" in an encoder-decoder's decoder)."""

    name: str
    layer: int
    kind: str  # "self" or "cross"
    projection: torch.nn.Module  # the output projection: its input holds the heads, concatenated
    heads: int

    @property
    def head_width(self) -> int:
        return _in_features(self.projection) // self.heads


@dataclass(frozen=True)
class Anatomy:
    rows: list[HeadRow]
    mlps: list[torch.nn.Module]  # per layer: the MLP's output projection
    blocks: list[torch.nn.Module]  # per layer: the block (its input is the residual stream entering it)
    final_norm: torch.nn.Module | None  # pre-norm families: the norm before the unembedding
    pre_norm: bool
    stack: str  # "decoder" or "encoder": which stack the rows are in

    @property
    def layers(self) -> int:
        return len(self.blocks)

    @property
    def heads(self) -> int:
        return self.rows[0].heads


def _in_features(module: torch.nn.Module) -> int:
    if hasattr(module, "in_features"):
        return int(module.in_features)
    return int(module.weight.shape[0])  # GPT-2's Conv1D: weight [in, out]


def _find(block: torch.nn.Module, names: tuple[str, ...]) -> torch.nn.Module | None:
    return first_module(block, names)


def _name(loaded: LoadedModel) -> str:
    return loaded.info.model_type.upper() if loaded.info.model_type in ("bert", "bart") else loaded.info.model_type


def anatomy(loaded: LoadedModel, what: str = "this") -> Anatomy:
    """The heads' and MLPs' places in ``loaded``; a one-line error for a family it does not know."""
    heads = int(loaded.info.heads)
    base = loaded.base_model
    if loaded.family is Family.DECODER:
        for blocks_at, attn, mlp, norm in tables.DECODER_HEAD_LAYOUTS:
            blocks = submodule(base, blocks_at)
            if isinstance(blocks, torch.nn.ModuleList) and len(blocks) and _find(blocks[0], (attn,)) is not None:
                rows = [HeadRow(str(i), i, "self", submodule(b, attn), heads) for i, b in enumerate(blocks)]
                mlps = [submodule(b, mlp) for b in blocks]
                if any(m is None for m in mlps):
                    break
                return Anatomy(rows, mlps, list(blocks), submodule(base, norm), True, "decoder")
    elif loaded.family is Family.ENCODER:
        blocks_at, attn, mlp = tables.ENCODER_HEAD_LAYOUT
        blocks = submodule(base, blocks_at)
        if isinstance(blocks, torch.nn.ModuleList) and len(blocks):
            rows = [HeadRow(str(i), i, "self", _find(b, (attn,)), heads) for i, b in enumerate(blocks)]
            mlps = [_find(b, (mlp,)) for b in blocks]
            if all(r.projection is not None for r in rows) and all(m is not None for m in mlps):
                return Anatomy(rows, mlps, list(blocks), None, False, "encoder")
    elif loaded.family is Family.ENCODER_DECODER:
        decoder = loaded.model.get_decoder()
        bart_blocks, t5_blocks = tables.STACK_BLOCK_LISTS
        (bart_self, t5_self), (bart_cross, t5_cross) = (tables.IN_BLOCK_PROJECTION["attn"],
                                                        tables.IN_BLOCK_PROJECTION["cross-attn"])
        bart_mlp, t5_mlp = tables.IN_BLOCK_PROJECTION["mlp"]
        t5 = submodule(decoder, t5_blocks)
        if isinstance(t5, torch.nn.ModuleList) and len(t5):
            heads = int(getattr(loaded.config, "num_heads", heads))
            rows = []
            for i, b in enumerate(t5):
                rows.append(HeadRow(f"{i} self", i, "self", submodule(b, t5_self), heads))
                rows.append(HeadRow(f"{i} cross", i, "cross", submodule(b, t5_cross), heads))
            mlps = [submodule(b, t5_mlp) for b in t5]
            if all(r.projection is not None for r in rows) and all(m is not None for m in mlps):
                return Anatomy(rows, mlps, list(t5), final_norm(loaded, "decoder"), True, "decoder")
        bart = submodule(decoder, bart_blocks)
        if isinstance(bart, torch.nn.ModuleList) and len(bart) and _find(bart[0], (bart_cross,)):
            heads = int(getattr(loaded.config, "decoder_attention_heads", heads))
            rows = []
            for i, b in enumerate(bart):
                rows.append(HeadRow(f"{i} self", i, "self", submodule(b, bart_self), heads))
                rows.append(HeadRow(f"{i} cross", i, "cross", submodule(b, bart_cross), heads))
            pre = bool(getattr(loaded.config, "normalize_before", False))
            return Anatomy(rows, [submodule(b, bart_mlp) for b in bart], list(bart),
                           final_norm(loaded, "decoder") if pre else None, pre, "decoder")
    raise WorkbenchError(f"{what} does not know where the heads of {loaded.info.model_type} models are (it "
                         "knows GPT-2, Llama-style decoders, BERT-style masked LMs, T5 and BART)")


def not_a_sum_note(loaded: LoadedModel) -> str:
    """The one line a post-norm model gets instead of direct logit attribution."""
    return NOT_A_SUM.format(name=_name(loaded))

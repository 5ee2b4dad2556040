"""Parallel adapters (He et al. 2022): a bottleneck network beside a sublayer, reading the sublayer's input.

A sequential (Houlsby) adapter reads the sublayer's output h and adds to it; a parallel adapter reads the
same input x the sublayer reads and adds its scaled output to the sublayer's output:
h ← h + s·ReLU(x·W_down)·W_up, before the residual add. The *scaled* parallel adapter is the same with
s > 1 (He et al. use s = 4); s = 1 is the plain one.

Sites, per layer (``parallel_sites``):

- BERT-style post-LN encoders: the attention sublayer's ``*SelfOutput`` computes LN(dropout(dense(a)) + x)
  and the feed-forward's ``*Output`` LN(dropout(dense(i)) + x), with x the sublayer's input in both. A
  forward pre-hook on that module turns its ``input_tensor`` x into x + s·f(x), so the sum before the
  LayerNorm is dense(·) + s·f(x) + x: the adapter's output joins the sublayer's output before the residual
  add and the LayerNorm, as in the paper.
- GPT-2 (pre-LN): ``attn`` and ``mlp`` read x = LN(block input); a forward hook adds s·f(x) to their output,
  before the block adds the residual.

The adapters are modules of the hooked sublayer (``….parallel_adapter``), so every base parameter keeps its
name. Other families (BART, T5, Llama) are refused naming the site that is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from engine.errors import WorkbenchError
from engine.finetune.methods.bottleneck.layer import BottleneckAdapter
from engine.finetune.methods.heads import head_prefixes, is_under, train_only

PARALLEL_SITES = ("attention", "feed_forward")
ATTRIBUTE = "parallel_adapter"
_BERT_STYLE = ("Bert", "Roberta", "XLMRoberta", "Electra", "Camembert")
_WHERE = {"attention": "the attention sublayer (a BERT-style *SelfOutput or GPT-2's attn)",
          "feed_forward": "the feed-forward sublayer (a BERT-style *Output or GPT-2's mlp)"}


@dataclass(frozen=True)
class ParallelSite:
    name: str  # the hooked module's name
    module: nn.Module
    sublayer: str  # "attention" or "feed_forward"
    hidden: int
    post_ln: bool  # True: BERT-style (pre-hook on input_tensor); False: GPT-2 (hook on the output)


def _bert_output(module: nn.Module) -> bool:
    return all(hasattr(module, a) for a in ("dense", "dropout", "LayerNorm")) and isinstance(module.dense, nn.Linear)


def _site_of(name: str, module: nn.Module) -> ParallelSite | None:
    kind = type(module).__name__
    if "crossattention" in name:
        return None
    if kind.startswith(_BERT_STYLE) and _bert_output(module):
        if kind.endswith("SelfOutput"):
            return ParallelSite(name, module, "attention", module.dense.out_features, True)
        if kind.endswith("Output"):
            return ParallelSite(name, module, "feed_forward", module.dense.out_features, True)
    width = getattr(getattr(module, "c_proj", None), "nf", None)
    if kind == "GPT2Attention" and width:
        return ParallelSite(name, module, "attention", width, False)
    if kind == "GPT2MLP" and width:
        return ParallelSite(name, module, "feed_forward", width, False)
    return None


def parallel_sites(model: nn.Module, wanted: tuple[str, ...] = PARALLEL_SITES, method: str = "parallel-adapter"
                   ) -> list[ParallelSite]:
    """The sites of ``wanted`` sublayers in ``model``, in module order; a one-line error naming the missing one."""
    unknown = [w for w in wanted if w not in PARALLEL_SITES]
    if unknown:
        raise WorkbenchError(f"unknown parallel adapter site {unknown[0]!r}; sites: {', '.join(PARALLEL_SITES)}")
    sites = [site for name, module in model.named_modules() if (site := _site_of(name, module)) is not None]
    for sublayer in wanted:
        if not any(site.sublayer == sublayer for site in sites):
            raise WorkbenchError(
                f"{method} cannot attach to {type(model).__name__}: its parallel adapter needs {_WHERE[sublayer]}, "
                "which this model does not have (parallel adapters attach to BERT-style encoders and GPT-2)")
    return [site for site in sites if site.sublayer in wanted]


def _bert_pre_hook(module: nn.Module, args: tuple, kwargs: dict):
    """``*Output.forward(hidden_states, input_tensor)``: input_tensor x becomes x + s·f(x)."""
    adapter = getattr(module, ATTRIBUTE)
    if len(args) >= 2:
        return (args[0], args[1] + adapter(args[1]), *args[2:]), kwargs
    x = kwargs["input_tensor"]
    return args, {**kwargs, "input_tensor": x + adapter(x)}


def _gpt2_hook(module: nn.Module, args: tuple, kwargs: dict, output):
    """``attn(x, ...)`` / ``mlp(x)``: the output (or its first element) gains s·f(x)."""
    adapter = getattr(module, ATTRIBUTE)
    x = args[0] if args else kwargs["hidden_states"]
    if isinstance(output, tuple):
        return (output[0] + adapter(x), *output[1:])
    return output + adapter(x)


class ScaledAdapter(nn.Module):
    """s·U(g(D(x))): a bottleneck network without its skip connection, times the scale s."""

    def __init__(self, hidden: int, bottleneck: int, non_linearity: str, init_scale: float, scale: float):
        super().__init__()
        inner = BottleneckAdapter(hidden, bottleneck, non_linearity, init_scale)
        self.down, self.activation, self.up = inner.down, inner.activation, inner.up
        self.scale = float(scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * self.up(self.activation(self.down(x)))

    def extra_repr(self) -> str:
        return f"scale={self.scale:g}"


def add_parallel_adapters(model: nn.Module, *, sublayers: tuple[str, ...], bottleneck: int | None = None,
                          reduction_factor: int = 16, scale: float = 1.0, non_linearity: str = "relu",
                          init_scale: float = 1e-3, method: str = "parallel-adapter",
                          modules_to_save: list[str] | None = None, freeze: bool = True) -> nn.Module:
    """Put a parallel adapter beside each of ``sublayers`` in every layer of ``model`` (in place).

    The bottleneck is ``bottleneck`` when given, else hidden // ``reduction_factor`` (at least 1). With
    ``freeze`` everything but the adapters and the task head is frozen. Returns ``model``.
    """
    if scale <= 0:
        raise WorkbenchError(f"the parallel adapter's scale must be > 0, not {scale}")
    sites = parallel_sites(model, sublayers, method)
    reference = next(model.parameters())
    for site in sites:
        if hasattr(site.module, ATTRIBUTE):
            raise WorkbenchError(f"{site.name} already has a parallel adapter; load a fresh copy of the base model")
        m = bottleneck if bottleneck is not None else max(1, site.hidden // reduction_factor)
        adapter = ScaledAdapter(site.hidden, m, non_linearity, init_scale, scale).to(
            device=reference.device, dtype=reference.dtype)
        setattr(site.module, ATTRIBUTE, adapter)
        if site.post_ln:  # the hooks find the adapter on the module, so a deep copy of the model stays right
            site.module.register_forward_pre_hook(_bert_pre_hook, with_kwargs=True)
        else:
            site.module.register_forward_hook(_gpt2_hook, with_kwargs=True)
    if freeze:
        heads = head_prefixes(model, modules_to_save)
        train_only(model, lambda name: f".{ATTRIBUTE}." in f".{name}" or is_under(name, heads))
    return model


def adapter_parameters(model: nn.Module) -> dict[str, nn.Parameter]:
    """The parallel adapters' parameters by name."""
    return {name: p for name, p in model.named_parameters() if f".{ATTRIBUTE}." in f".{name}"}

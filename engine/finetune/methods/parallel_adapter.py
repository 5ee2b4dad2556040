"""Parallel adapters (He et al. 2022): a bottleneck network beside a sublayer, reading the sublayer's input.

A sequential (Houlsby) adapter reads the sublayer's output h and adds to it; a parallel adapter reads the
same input x the sublayer reads and adds its scaled output to the sublayer's output:
h ← h + s·ReLU(x·W_down)·W_up, before the residual add. The *scaled* parallel adapter is the same with
s > 1 (He et al. use s = 4); s = 1 is the plain one.

Sites, per family (``lm_workbench.engine.finetune.methods.parallel_sites``): BERT-style encoders, GPT-2, Llama-style
decoders, BART and T5, each at its attention (self-attention) and feed-forward sublayers; the output always
joins after the sublayer's dropout and before the residual add (and a post-LN model's LayerNorm). Other
families are refused naming the site that is missing.
"""

from __future__ import annotations

from functools import partial

import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.bottleneck.layer import BottleneckAdapter
from lm_workbench.engine.finetune.methods.heads import head_prefixes, is_under, train_only
from lm_workbench.engine.anatomy.parallel_sites import PARALLEL_SITES, ParallelSite, find_sites, missing_site_reason

ATTRIBUTE = "parallel_adapter"


def parallel_sites(model: nn.Module, wanted: tuple[str, ...] = PARALLEL_SITES, method: str = "parallel-adapter"
                   ) -> list[ParallelSite]:
    """The sites of ``wanted`` sublayers in ``model``, in module order; a one-line error naming the missing one."""
    unknown = [w for w in wanted if w not in PARALLEL_SITES]
    if unknown:
        raise WorkbenchError(f"unknown parallel adapter site {unknown[0]!r}; sites: {', '.join(PARALLEL_SITES)}")
    sites = find_sites(model)
    for sublayer in wanted:
        if not any(site.sublayer == sublayer for site in sites):
            raise WorkbenchError(missing_site_reason(model, sublayer, method))
    return [site for site in sites if site.sublayer in wanted]


def _bert_pre_hook(module: nn.Module, args: tuple, kwargs: dict):
    """``*Output.forward(hidden_states, input_tensor)``: input_tensor x becomes x + s·f(x)."""
    adapter = getattr(module, ATTRIBUTE)
    if len(args) >= 2:
        return (args[0], args[1] + adapter(args[1]), *args[2:]), kwargs
    x = kwargs["input_tensor"]
    return args, {**kwargs, "input_tensor": x + adapter(x)}


def _input_of(args: tuple, kwargs: dict) -> torch.Tensor:
    return args[0] if args else kwargs["hidden_states"]


def _output_hook(module: nn.Module, args: tuple, kwargs: dict, output):
    """GPT-2's ``attn``/``mlp``, a Llama-style ``self_attn``/``mlp``: the output (or its first element) gains
    s·f(x), x the module's input."""
    delta = getattr(module, ATTRIBUTE)(_input_of(args, kwargs))
    if isinstance(output, tuple):
        return (output[0] + delta, *output[1:])
    return output + delta


def _read_pre_hook(module: nn.Module, args: tuple, kwargs: dict) -> None:
    """BART's ``fc1``/``self_attn``, T5's ``DenseReluDense``/``SelfAttention``: s·f(x) from their input x, kept
    until the joiner adds it."""
    adapter = getattr(module, ATTRIBUTE)
    adapter.pending.value = adapter(_input_of(args, kwargs))


def _take(reader: nn.Module) -> torch.Tensor:
    pending = getattr(reader, ATTRIBUTE).pending
    delta, pending.value = pending.value, None
    if delta is None:
        raise RuntimeError("a parallel adapter's output was asked for before its sublayer read its input")
    return delta


def _join_norm_input(reader: nn.Module, module: nn.Module, args: tuple, kwargs: dict):
    """BART's LayerNorm after a sublayer: its input residual + dropout(sublayer) gains s·f(x)."""
    delta = _take(reader)
    if args:
        return (args[0] + delta, *args[1:]), kwargs
    return args, {**kwargs, "input": kwargs["input"] + delta}


def _join_output(reader: nn.Module, module: nn.Module, args: tuple, kwargs: dict, output):
    """T5's ``T5LayerFF``/``T5LayerSelfAttention``: h + dropout(sublayer(LN(h))) gains s·f(LN(h))."""
    delta = _take(reader)
    if isinstance(output, tuple):
        return (output[0] + delta, *output[1:])
    return output + delta


class Pending:
    """The adapter's output between its sublayer's input and the place it joins; never copied or saved."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = None

    def __deepcopy__(self, memo: dict) -> "Pending":
        return Pending()

    def __reduce__(self):
        return (Pending, ())


class ScaledAdapter(nn.Module):
    """s·U(g(D(x))): a bottleneck network without its skip connection, times the scale s."""

    def __init__(self, hidden: int, bottleneck: int, non_linearity: str, init_scale: float, scale: float):
        super().__init__()
        inner = BottleneckAdapter(hidden, bottleneck, non_linearity, init_scale)
        self.down, self.activation, self.up = inner.down, inner.activation, inner.up
        self.scale = float(scale)
        self.pending = Pending()  # BART and T5: s·f(x) from the sublayer's input until it joins

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
        # The hooks find the adapter on the module (the joiner's through a partial of it, which a deep copy of
        # the model maps to the copy's module), so a deep copy of the model runs its own adapters.
        if site.how == "input_tensor":
            site.module.register_forward_pre_hook(_bert_pre_hook, with_kwargs=True)
        elif site.how == "output":
            site.module.register_forward_hook(_output_hook, with_kwargs=True)
        else:
            site.module.register_forward_pre_hook(_read_pre_hook, with_kwargs=True)
            if site.join_at == "norm_input":
                site.joiner.register_forward_pre_hook(partial(_join_norm_input, site.module), with_kwargs=True)
            else:
                site.joiner.register_forward_hook(partial(_join_output, site.module), with_kwargs=True)
    if freeze:
        heads = head_prefixes(model, modules_to_save)
        train_only(model, lambda name: f".{ATTRIBUTE}." in f".{name}" or is_under(name, heads))
    return model


def adapter_parameters(model: nn.Module) -> dict[str, nn.Parameter]:
    """The parallel adapters' parameters by name."""
    return {name: p for name, p in model.named_parameters() if f".{ATTRIBUTE}." in f".{name}"}

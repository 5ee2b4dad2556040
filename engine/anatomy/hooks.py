"""The one hook toolkit: read, keep or replace what a module reads (its input) or writes (its output).

Every tool is a context manager; its hooks are removed when the block ends, also on an error. A module that
takes its hidden states as a keyword (``hidden_states=``) has that keyword read or replaced; a module that
returns a tuple (attention modules return their weights too) has its first element kept or replaced.

- ``keeping_inputs`` / ``keeping_outputs``: per module, a list of detached copies [B, T, H], one per call;
- ``recording_inputs`` / ``recording``: one flat list, in call order over all the modules;
- ``holding_outputs``: per module, its last output, not detached (gradients flow through it);
- ``replacing_inputs`` / ``replacing_outputs``: ``{module: change}``, each ``change(x) -> x'``;
- ``replacing_input`` / ``replacing``: the same for one module.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Iterator

import torch

Change = Callable[[torch.Tensor], torch.Tensor]


def first_input(args: tuple, kwargs: dict) -> torch.Tensor:
    """A module's hidden-states input [B, T, H]: its first positional argument, or ``hidden_states=``."""
    return args[0] if args else kwargs["hidden_states"]


def first_output(output: Any) -> torch.Tensor:
    """A module's output, or the first element of the tuple it returns."""
    return output[0] if isinstance(output, tuple) else output


def with_first(output: Any, first: torch.Tensor) -> Any:
    """``output`` with its first element (or itself, when not a tuple) replaced by ``first``."""
    return (first, *output[1:]) if isinstance(output, tuple) else first


def _replace_input(args: tuple, kwargs: dict, change: Change) -> tuple[tuple, dict]:
    if args:
        return (change(args[0]), *args[1:]), kwargs
    return args, {**kwargs, "hidden_states": change(kwargs["hidden_states"])}


@contextmanager
def keeping_inputs(modules: list[torch.nn.Module]) -> Iterator[list[list[torch.Tensor]]]:
    """Within the block, ``kept[i]`` collects a detached copy of module i's first input [B, T, H] per call."""
    kept: list[list[torch.Tensor]] = [[] for _ in modules]
    with ExitStack() as stack:
        for i, module in enumerate(modules):
            def keep(_module, args, kwargs, i=i):
                kept[i].append(first_input(args, kwargs).detach().clone())

            stack.callback(module.register_forward_pre_hook(keep, with_kwargs=True).remove)
        yield kept


@contextmanager
def keeping_outputs(modules: list[torch.nn.Module], index: int = 0) -> Iterator[list[list[torch.Tensor]]]:
    """Within the block, ``kept[i]`` collects a detached copy of module i's (first) output per call; ``index``
    picks another element of a tuple output (an attention's weights), skipped where it is not a tensor."""
    kept: list[list[torch.Tensor]] = [[] for _ in modules]
    with ExitStack() as stack:
        for i, module in enumerate(modules):
            def keep(_module, _args, output, i=i):
                value = output[index] if isinstance(output, tuple) else output
                if isinstance(value, torch.Tensor):
                    kept[i].append(value.detach().clone())

            stack.callback(module.register_forward_hook(keep).remove)
        yield kept


@contextmanager
def recording(modules: list[torch.nn.Module]) -> Iterator[list[torch.Tensor]]:
    """Within the block, each forward pass appends to the yielded list (in call order) a copy of every
    module's (first) output [B, T, H]."""
    kept: list[torch.Tensor] = []
    with ExitStack() as stack:
        for module in modules:
            def keep(_module, _inputs, output):
                kept.append(first_output(output).detach().clone())

            stack.callback(module.register_forward_hook(keep).remove)
        yield kept


@contextmanager
def holding_outputs(modules: list[torch.nn.Module]) -> Iterator[list[torch.Tensor | None]]:
    """Within the block, the yielded list holds each module's (first) output of the last forward pass, in
    ``modules``' order (hooks fire in execution order, which may mix them), undetached."""
    kept: list[torch.Tensor | None] = [None] * len(modules)
    with ExitStack() as stack:
        for i, module in enumerate(modules):
            def keep(_module, _inputs, output, i=i):
                kept[i] = first_output(output)

            stack.callback(module.register_forward_hook(keep).remove)
        yield kept


@contextmanager
def recording_inputs(modules: list[torch.nn.Module]) -> Iterator[list[torch.Tensor]]:
    """Within the block, each forward pass appends to the yielded list (in call order) a copy of every
    module's hidden-states input [B, T, H] (for a block: the residual stream entering it)."""
    kept: list[torch.Tensor] = []
    with ExitStack() as stack:
        for module in modules:
            def keep(_module, args, kwargs):
                kept.append(first_input(args, kwargs).detach().clone())

            stack.callback(module.register_forward_pre_hook(keep, with_kwargs=True).remove)
        yield kept


@contextmanager
def replacing_inputs(changes: dict[torch.nn.Module, Change]) -> Iterator[None]:
    """Within the block, each module's first input x [B, T, H] is replaced by ``changes[module](x)``."""
    with ExitStack() as stack:
        for module, change in changes.items():
            def hook(_module, args, kwargs, change=change):
                return _replace_input(args, kwargs, change)

            stack.callback(module.register_forward_pre_hook(hook, with_kwargs=True).remove)
        yield


@contextmanager
def replacing_outputs(changes: dict[torch.nn.Module, Change]) -> Iterator[None]:
    """Within the block, each module's (first) output is replaced by ``changes[module](output)``."""
    with ExitStack() as stack:
        for module, change in changes.items():
            def hook(_module, _args, output, change=change):
                return with_first(output, change(first_output(output)))

            stack.callback(module.register_forward_hook(hook).remove)
        yield


def replacing_input(module: torch.nn.Module, patch: Change) -> Any:
    """Within the block, ``module``'s input hidden states [B, T, H] are replaced by ``patch(hidden)``."""
    return replacing_inputs({module: patch})


def replacing(module: torch.nn.Module, patch: Change) -> Any:
    """Within the block, ``module``'s (first) output [B, T, H] is replaced by ``patch(output)``."""
    return replacing_outputs({module: patch})

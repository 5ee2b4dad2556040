"""Hooks that keep or replace what a module reads or writes during one forward pass."""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Iterator

import torch


def _first_input(args: tuple, kwargs: dict) -> torch.Tensor:
    return args[0] if args else kwargs["hidden_states"]


def _first(output: Any) -> torch.Tensor:
    return output[0] if isinstance(output, tuple) else output


@contextmanager
def keeping_inputs(modules: list[torch.nn.Module]) -> Iterator[list[list[torch.Tensor]]]:
    """Within the block, ``kept[i]`` collects a detached copy of module i's first input [B, T, H] per call."""
    kept: list[list[torch.Tensor]] = [[] for _ in modules]
    with ExitStack() as stack:
        for i, module in enumerate(modules):
            def keep(_module, args, kwargs, i=i):
                kept[i].append(_first_input(args, kwargs).detach().clone())

            stack.callback(module.register_forward_pre_hook(keep, with_kwargs=True).remove)
        yield kept


@contextmanager
def keeping_outputs(modules: list[torch.nn.Module]) -> Iterator[list[list[torch.Tensor]]]:
    """Within the block, ``kept[i]`` collects a detached copy of module i's (first) output per call."""
    kept: list[list[torch.Tensor]] = [[] for _ in modules]
    with ExitStack() as stack:
        for i, module in enumerate(modules):
            def keep(_module, _args, output, i=i):
                kept[i].append(_first(output).detach().clone())

            stack.callback(module.register_forward_hook(keep).remove)
        yield kept


@contextmanager
def replacing_inputs(changes: dict[torch.nn.Module, Callable[[torch.Tensor], torch.Tensor]]) -> Iterator[None]:
    """Within the block, each module's first input x [B, T, H] is replaced by ``changes[module](x)``."""
    with ExitStack() as stack:
        for module, change in changes.items():
            def hook(_module, args, kwargs, change=change):
                if args:
                    return (change(args[0]), *args[1:]), kwargs
                return args, {**kwargs, "hidden_states": change(kwargs["hidden_states"])}

            stack.callback(module.register_forward_pre_hook(hook, with_kwargs=True).remove)
        yield


@contextmanager
def replacing_outputs(changes: dict[torch.nn.Module, Callable[[torch.Tensor], torch.Tensor]]) -> Iterator[None]:
    """Within the block, each module's (first) output is replaced by ``changes[module](output)``."""
    with ExitStack() as stack:
        for module, change in changes.items():
            def hook(_module, _args, output, change=change):
                if isinstance(output, tuple):
                    return (change(output[0]), *output[1:])
                return change(output)

            stack.callback(module.register_forward_hook(hook).remove)
        yield

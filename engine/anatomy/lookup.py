"""Finding a family's modules by the dotted paths of ``tables``."""

from __future__ import annotations

from typing import Any

import torch


def submodule(module: Any, dotted: str) -> Any:
    """``module.a.b.c`` for ``"a.b.c"``, or None where a part is missing (architectures name their parts
    differently: callers look for each known name in turn). A part ``-1`` is the last of a list."""
    for part in dotted.split("."):
        if part == "-1":
            module = module[-1] if isinstance(module, torch.nn.ModuleList) and len(module) else None
        else:
            module = getattr(module, part, None)
        if module is None:
            return None
    return module


def first_module(root: Any, paths: tuple[str, ...]) -> torch.nn.Module | None:
    """The first of ``paths`` under ``root`` that is a module, or None."""
    for path in paths:
        found = submodule(root, path)
        if isinstance(found, torch.nn.Module):
            return found
    return None


def per_block(blocks: list[torch.nn.Module], paths: tuple[str, ...]) -> list[torch.nn.Module] | None:
    """For the first of ``paths`` that every block has, that module of each block; None if none fits."""
    for path in paths:
        modules = [submodule(block, path) for block in blocks]
        if all(isinstance(m, torch.nn.Module) for m in modules):
            return modules
    return None

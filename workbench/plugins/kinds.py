"""The extension kinds the workbench knows; discovery looks for every one of them.

A new kind is one ``ExtensionKind`` in a module of its own, like
``objective_kind``, ``finetune_method_kind`` and ``prompt_set_kind``, added to ``KINDS``.
"""

from __future__ import annotations

from workbench.plugins.extension_kind import ExtensionKind
from workbench.plugins.finetune_method_kind import FINETUNE_METHODS
from workbench.plugins.objective_kind import OBJECTIVES
from workbench.plugins.prompt_set_kind import PROMPT_SETS

KINDS: tuple[ExtensionKind, ...] = (OBJECTIVES, FINETUNE_METHODS, PROMPT_SETS)


def kind_named(name: str, kinds: tuple[ExtensionKind, ...] = KINDS) -> ExtensionKind | None:
    return next((k for k in kinds if k.name == name), None)

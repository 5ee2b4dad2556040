"""The extension kinds the workbench knows; discovery looks for every one of them.

A new kind is one ``ExtensionKind`` in a module of its own, like
``objective_kind``, ``finetune_method_kind`` and ``prompt_set_kind``, added to ``KINDS``.
"""

from __future__ import annotations

from lm_workbench.extensions.extension_kind import ExtensionKind
from lm_workbench.extensions.finetune_method_kind import FINETUNE_METHODS
from lm_workbench.extensions.objective_kind import OBJECTIVES
from lm_workbench.extensions.prompt_set_kind import PROMPT_SETS

KINDS: tuple[ExtensionKind, ...] = (OBJECTIVES, FINETUNE_METHODS, PROMPT_SETS)


def kind_named(name: str, kinds: tuple[ExtensionKind, ...] = KINDS) -> ExtensionKind | None:
    return next((k for k in kinds if k.name == name), None)

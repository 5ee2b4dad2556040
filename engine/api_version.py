"""The plugin API's version, in a module of its own so the engine's parts can read it.

``lm_workbench.engine.plugin_api`` re-exports it. It is "MAJOR.MINOR": the minor part
rises when the API grows (a new helper, a new optional hook), the major part
when it changes incompatibly (a changed signature). A plugin declares the
version it was written for; it is compatible when the majors are equal and
its minor is at most this one. Version 2.0 (the first public one) passes
``loss`` a ``LossContext`` instead of version 1's ``(model, heads, batch)``;
2.1 adds the fine-tuning method protocol and its helpers, and prompt sets; 2.2 adds ``supply_prefix``;
2.3 adds ``UnifiedRow`` (a method's ``unified`` row in He et al.'s framework) and the parallel adapter, the
sentence, instruct and preference tasks (``SENTENCE_TASK``, ``CLASSIC_TASKS``) and the loss-side speed levers
(``causal_lm_loss``, ``masked_lm_forward``, ``linear_cross_entropy``, ``loss_levers``). 3.0 is 2.3 under one
import name: the API is ``lm_workbench.engine.plugin_api`` (it was ``engine.plugin_api``), so a plugin written for
2.x imports a module that no longer exists and is refused with a line that says so. 3.1 adds the fine-tuning
method's optional ``sizes_for(config, hidden)`` (the sizes a config takes on the loaded model, for the diagram).
3.2 adds ``ffn_out_layers`` and ``FFN_OUT_NAMES`` (a family's feed-forward output layers, read from the one model
anatomy, ``docs/model-anatomy.md``), for methods that scale or wrap them (IA3). 3.3 adds ``setting(default, help,
**bounds)``, a settings field with its help and bounds in one call (``field(default=..., metadata={...})`` still
works).
"""

from __future__ import annotations

import re
from typing import Any

API_VERSION = "3.3"
# Where a plugin written for an older major version reads what changed (the Versions section).
MIGRATION_DOC = "docs/writing-an-objective.md#versions"
_VERSION = re.compile(r"^\s*(\d+)(?:\.(\d+))?\s*$")


def parse_api_version(value: Any) -> tuple[int, int] | None:
    """(major, minor) of a declared version: an int (its major) or a "MAJOR[.MINOR]" string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value, 0) if value >= 0 else None
    match = _VERSION.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def api_version_problem(declared: Any) -> str | None:
    """Why a plugin declaring ``declared`` cannot run on this API, or None when it can."""
    ours = parse_api_version(API_VERSION)
    theirs = parse_api_version(declared)
    if theirs is None:
        return (f"declares no usable plugin API version ({declared!r}); set api_version = {API_VERSION!r}, "
                "the version it was written for")
    if theirs[0] == 2 and ours[0] == 3:
        return (f"written for plugin API version {declared} (imports from engine.plugin_api); version {API_VERSION} "
                f"lives under one import name, lm_workbench.engine.plugin_api: change the imports and declare "
                f"api_version = {API_VERSION!r} (see {MIGRATION_DOC})")
    if theirs[0] != ours[0]:
        return f"written for plugin API version {declared}; this LM Workbench has version {API_VERSION}"
    if theirs[1] > ours[1]:
        return (f"written for plugin API version {declared}, newer than this LM Workbench's {API_VERSION}; "
                "update LM Workbench")
    return None

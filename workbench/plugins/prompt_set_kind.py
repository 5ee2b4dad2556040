"""Prompt sets as an extension kind (entry-point group ``lm_workbench.prompt_sets``)."""

from __future__ import annotations

from engine.plugin_api import PromptSet
from engine.prompting.prompt_set import prompt_set_problem
from workbench.plugins.extension_kind import ExtensionKind

PROMPT_SETS = ExtensionKind(name="prompt-set", group="lm_workbench.prompt_sets", base=PromptSet,
                            check=prompt_set_problem)

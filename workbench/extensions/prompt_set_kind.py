"""Prompt sets as an extension kind (entry-point group ``lm_workbench.prompt_sets``)."""

from __future__ import annotations

from lm_workbench.engine.plugin_api import PromptSet
from lm_workbench.engine.prompting.prompt_set import prompt_set_problem
from lm_workbench.extensions.extension_kind import ExtensionKind

PROMPT_SETS = ExtensionKind(name="prompt-set", group="lm_workbench.prompt_sets", base=PromptSet,
                            check=prompt_set_problem)

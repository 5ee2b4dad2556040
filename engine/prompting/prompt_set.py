"""Prompt sets: named templates and verbalizers for one task, shared as a plugin or as a file.

``PromptSet`` is the plugin API's base class for the ``lm_workbench.prompt_sets`` entry-point group: a
subclass declares ``name``, ``title``, ``api_version``, its ``templates`` and ``verbalizers`` and, where it
ships one, a labelled file to try them on (``example_data``). The same content travels as a JSON file a
teacher can share (docs/prompt-sets.md; ``lm_workbench.prompting.files`` reads and writes it). No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lm_workbench.engine.api_version import API_VERSION
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.names import MODES
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer


@dataclass(frozen=True)
class NamedTemplate:
    """A template of a prompt set: its name, its text with [x] / [x2] / [z], and its mode."""

    name: str
    text: str
    mode: str = "cloze"

    def template(self) -> Template:
        return Template.parse(self.text, self.mode)


@dataclass(frozen=True)
class NamedVerbalizer:
    """A verbalizer of a prompt set: its name and its ``label=word,word;label=word`` text."""

    name: str
    spec: str

    def verbalizer(self) -> Verbalizer:
        return Verbalizer.parse(self.spec)


class PromptSet:
    """Base class of prompt-set plugins (entry-point group ``lm_workbench.prompt_sets``)."""

    name: str = ""
    title: str = ""
    description: str = ""
    api_version: str = API_VERSION
    templates: tuple[NamedTemplate, ...] = ()
    verbalizers: tuple[NamedVerbalizer, ...] = ()

    def example_data(self) -> Path | None:
        """A labelled TSV / CSV / JSONL file (``sentence``/``text`` and ``label``) to evaluate on, or None."""
        return None


def prompt_set_problem(cls: type) -> str | None:
    """Why a ``PromptSet`` subclass is unusable (no templates, a bad template or verbalizer), or None."""
    templates, verbalizers = cls.templates, cls.verbalizers
    if not templates:
        return "it has no templates"
    if not verbalizers:
        return "it has no verbalizers"
    for item in templates:
        if not isinstance(item, NamedTemplate):
            return f"template {item!r} is not a NamedTemplate"
        if item.mode not in MODES:
            return f"template {item.name!r}: mode must be cloze or prefix, not {item.mode!r}"
        try:
            item.template()
        except WorkbenchError as exc:
            return f"template {item.name!r}: {exc}"
    for item in verbalizers:
        if not isinstance(item, NamedVerbalizer):
            return f"verbalizer {item!r} is not a NamedVerbalizer"
        try:
            item.verbalizer()
        except WorkbenchError as exc:
            return f"verbalizer {item.name!r}: {exc}"
    return None

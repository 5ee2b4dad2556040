"""``ViewEntry``: what the registry knows of a view (see ``lm_workbench.ui.window.view_registry``); no view imports here.

An entry names its view class (the class itself, or ``"module:Class"`` imported when the entry is
registered, so listing entries builds no widget); the class is called with the view's ``ViewContext``.
What the view can do beyond that (presets, export, shutdown) is read from the class: see
``lm_workbench.ui.view_kit.view_abilities``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lm_workbench.ui.view_kit.view_abilities import preset_keys

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from lm_workbench.ui.view_kit.view_context import ViewContext

INPUTS = ("text", "pair", "corpus")


def short_title_agrees(title: str, short: str) -> bool:
    """Whether a short tab name is recognisably ``title``: the title itself, one of its words (split on spaces),
    or the start of the title or of one of its words ("Lens" of "Logit lens", "Embed" of "Embeddings"); "Search"
    for "Retrieval" and "Tune" for "Fine-tune" are not (a hyphenated word is one word)."""
    words = title.lower().split()
    s = short.lower().strip()
    return bool(s) and (s == title.lower() or any(w.startswith(s) for w in words))


@dataclass(frozen=True)
class ViewEntry:
    id: str  # stable name: settings, tests and lecture presets refer to the view by it
    title: str  # the tab's text
    about_html: str  # the About panel while the view is current
    view: type | str  # the view class (called with the ViewContext), or "package.module:Class"
    shortcut: str | None = None  # e.g. "Ctrl+1"
    inputs: frozenset[str] = field(default_factory=frozenset)  # a subset of INPUTS
    short_title: str = ""  # the tab's text when the full titles do not all fit ("" = the title)

    def __post_init__(self) -> None:
        unknown = set(self.inputs) - set(INPUTS)
        if unknown:
            raise ValueError(f"view {self.id!r}: unknown inputs {sorted(unknown)} (known: {', '.join(INPUTS)})")
        if "pair" in self.inputs and "text" not in self.inputs:
            raise ValueError(f"view {self.id!r}: the pair field goes with the text box ('pair' needs 'text')")
        if isinstance(self.view, str) and ":" not in self.view:
            raise ValueError(f"view {self.id!r}: name its class as 'package.module:Class', not {self.view!r}")
        object.__setattr__(self, "inputs", frozenset(self.inputs))
        if not self.short_title:
            object.__setattr__(self, "short_title", self.title)
        if len(self.short_title) > len(self.title):
            raise ValueError(f"view {self.id!r}: the short title {self.short_title!r} is longer than the title")

    @property
    def menu_title(self) -> str:
        """The name menus and tooltips give the view: its title, and its short title beside it in brackets when
        the tab bar's short name is not recognisably the title ("Retrieval (Search)", "Fine-tune (Tune)"), so the
        bar and the View menu never name one view two ways without saying so."""
        return self.title if short_title_agrees(self.title, self.short_title) else f"{self.title} ({self.short_title})"

    def view_class(self) -> type:
        """The view's class (its module is imported on first use)."""
        if isinstance(self.view, str):
            module, _, name = self.view.partition(":")
            object.__setattr__(self, "view", getattr(importlib.import_module(module), name))
        return self.view  # type: ignore[return-value]

    def create(self, ctx: ViewContext) -> QWidget:
        return self.view_class()(ctx)

    @property
    def preset_settings(self) -> frozenset[str]:
        """The setting keys a lecture preset step (or a workspace) may give the view, declared on its class
        next to ``apply_preset_step`` (empty: none)."""
        return preset_keys(self.view_class())

    def reads_text(self) -> bool:
        return "text" in self.inputs

"""``ViewEntry``: what the registry knows of a view (see ``ui.shell.view_registry``); no view imports here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext

INPUTS = ("text", "pair", "corpus")


@dataclass(frozen=True)
class ViewEntry:
    id: str  # stable name: settings, tests and lecture presets refer to the view by it
    title: str  # the tab's text
    about_html: str  # the About panel while the view is current
    factory: Callable[[ViewContext], QWidget]
    shortcut: str | None = None  # e.g. "Ctrl+1"
    inputs: frozenset[str] = field(default_factory=frozenset)  # a subset of INPUTS
    # the setting keys a lecture preset step (or a workspace) may give the view: it applies them with
    # ``apply_preset_step(settings, inputs)`` and reports them with ``preset_state()`` (empty: none)
    preset_settings: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        unknown = set(self.inputs) - set(INPUTS)
        if unknown:
            raise ValueError(f"view {self.id!r}: unknown inputs {sorted(unknown)} (known: {', '.join(INPUTS)})")
        if "pair" in self.inputs and "text" not in self.inputs:
            raise ValueError(f"view {self.id!r}: the pair field goes with the text box ('pair' needs 'text')")
        object.__setattr__(self, "inputs", frozenset(self.inputs))
        object.__setattr__(self, "preset_settings", frozenset(self.preset_settings))

    def reads_text(self) -> bool:
        return "text" in self.inputs

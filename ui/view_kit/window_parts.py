"""The four small interfaces the window hands its own parts (lectures, workspaces, the recorder, the audience
window, the menus), instead of the window or its widgets.

- ``ViewDriver``: drive the views (which there are, which is current, show one, read or give one's state, a
  picture of one, hear when the current one changes);
- ``LoadedModels``: model A (the loaded one) and model B (compared beside it), loading either;
- ``TextBox``: the text box and its pair line;
- ``Notifier``: the message bar and the status line.

Each is a frozen dataclass of plain callables (and, where a part must hear of a change, a signal); the window
builds one of each (``lm_workbench.ui.window.main_window``) and a test can build its own. A part takes only the ones it
uses, plus what is its own (the lecture controller's Next/Previous actions, say).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QWidget

    from lm_workbench.ui.view_kit.view_entry import ViewEntry

ViewState = tuple[dict[str, Any], dict[str, Any]]  # (settings, inputs), as a lecture step or a workspace keeps it


@dataclass(frozen=True)
class ViewDriver:
    """The window's views, as its parts may drive them."""

    entries: Callable[[], list[ViewEntry]]
    current_entry: Callable[[], ViewEntry | None]
    show_view: Callable[[str], None]
    preset_state: Callable[[str], ViewState | None]  # what a view shows now, None: nothing of its own to keep
    apply_preset_step: Callable[[str, dict[str, Any], dict[str, Any]], None]  # (view id, settings, inputs)
    export_widget: Callable[[str], QWidget]  # what File > Export saves of a view (the audience window's picture)
    current_changed: SignalInstance  # emits when another view becomes current


@dataclass(frozen=True)
class LoadedModels:
    """Model A (the loaded one) and model B (compared beside it)."""

    loaded: Callable[[], Any]  # model A, a LoadedModel, or None
    loading: Callable[[], bool]  # a load (A's or B's) is under way
    load: Callable[[str], None]  # load a spec as model A
    ready: SignalInstance  # emits the LoadedModel when A's load finishes
    model_b: Callable[[], Any]  # model B, a LoadedModel, or None
    compare_with: Callable[[str], None]  # load a spec as model B (after A's load when one is under way)
    stop_comparing: Callable[[], None]


@dataclass(frozen=True)
class TextBox:
    """The text box and its pair line (the second sentence)."""

    text: Callable[[], str]
    pair: Callable[[], str | None]
    set_text: Callable[[str, str | None], None]  # (text, pair)


@dataclass(frozen=True)
class Notifier:
    """The message bar (one message per source) and the status line."""

    show_message: Callable[[str, str, str], None]  # text, level (info | warning | error), source
    clear: Callable[[str], None]  # source
    show_error: Callable[..., None]  # (exc, tb="", *, source=None): its one line
    status: Callable[[str], None]

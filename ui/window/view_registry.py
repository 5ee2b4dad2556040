"""Every tab of the window is one ``ViewEntry``; each view package exports its own (``ui/<view>/entry.py``).

An entry says what the view is called, what its About panel explains, which class makes it (called with
a ``lm_workbench.ui.view_kit.view_context.ViewContext``: the narrow set of services a view may use, never the window), its
keyboard shortcut, and which of the window's shared inputs it reads: ``text`` (the sentence box), ``pair``
(the second-sentence line) and ``corpus`` (a corpus of its own). The window shows the text box only while
a view that reads it is current.

``builtin_views()`` is the registry the window opens with: one line per view. Tests and later features add
entries to a copy with ``register``, which checks the view class's optional hooks
(``lm_workbench.ui.view_kit.view_abilities``). Registering imports the view modules but builds no widget.
"""

from __future__ import annotations

from typing import Iterator

from lm_workbench.ui.view_kit.view_abilities import check_view_class
from lm_workbench.ui.view_kit.view_entry import INPUTS, ViewEntry

__all__ = ["INPUTS", "ViewEntry", "ViewRegistry", "builtin_views"]

class ViewRegistry:
    """An ordered set of view entries (the window's tabs, in order)."""

    def __init__(self, entries: list[ViewEntry] | tuple[ViewEntry, ...] = ()) -> None:
        self._entries: dict[str, ViewEntry] = {}
        for entry in entries:
            self.register(entry)

    def register(self, entry: ViewEntry) -> ViewEntry:
        """Add ``entry`` after checking its id, shortcut and its class's optional hooks (``ValueError``)."""
        if entry.id in self._entries:
            raise ValueError(f"a view called {entry.id!r} is registered already")
        taken = {e.shortcut for e in self._entries.values() if e.shortcut}
        if entry.shortcut and entry.shortcut in taken:
            raise ValueError(f"view {entry.id!r}: the shortcut {entry.shortcut} is taken")
        check_view_class(entry.id, entry.view_class())
        self._entries[entry.id] = entry
        return entry

    def get(self, view_id: str) -> ViewEntry:
        try:
            return self._entries[view_id]
        except KeyError:
            raise KeyError(f"no view called {view_id!r} (views: {', '.join(self._entries)})") from None

    def ids(self) -> list[str]:
        return list(self._entries)

    def copy(self) -> ViewRegistry:
        return ViewRegistry(list(self._entries.values()))

    def __iter__(self) -> Iterator[ViewEntry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


# ----------------------------------------------------------------- built-ins
def builtin_views() -> ViewRegistry:
    """The window's tabs, in order: each view package exports its ``ENTRY`` (one line here per view)."""
    from lm_workbench.ui.attention.entry import ENTRY as attention
    from lm_workbench.ui.compare.entry import ENTRY as compare
    from lm_workbench.ui.embeddings.entry import ENTRY as embeddings
    from lm_workbench.ui.features.entry import ENTRY as features
    from lm_workbench.ui.finetune.entry import ENTRY as finetune
    from lm_workbench.ui.guide.entry import ENTRY as guide
    from lm_workbench.ui.heads.entry import ENTRY as heads
    from lm_workbench.ui.lens.entry import ENTRY as lens
    from lm_workbench.ui.masking_lab.entry import ENTRY as masking_lab
    from lm_workbench.ui.patching.entry import ENTRY as patching
    from lm_workbench.ui.predictions.entry import ENTRY as predictions
    from lm_workbench.ui.pretrain.entry import ENTRY as pretrain
    from lm_workbench.ui.probing.entry import ENTRY as probing
    from lm_workbench.ui.prompting.entry import ENTRY as prompting
    from lm_workbench.ui.retrieval.entry import ENTRY as retrieval
    from lm_workbench.ui.runs.entry import ENTRY as runs
    from lm_workbench.ui.tokens.entry import ENTRY as tokens

    return ViewRegistry([tokens, attention, predictions, lens, patching, heads, features, masking_lab, embeddings,
                         probing, prompting, pretrain, finetune, runs, compare, retrieval, guide])

"""``ExplorerParts``: the parts of the embedding explorer its export menu reads (the context, the notice, the
state and the panels it saves). The explorer builds the menu; the menu needs only these, so the two modules do
not import each other."""

from __future__ import annotations

from typing import Any, Protocol


class ExplorerParts(Protocol):
    ctx: Any  # the view's ViewContext (model_spec, status)
    notice: Any  # the view's Notice
    state: Any  # lm_workbench.embeddings.state.EmbeddingsState
    map: Any  # the ScatterMap (its ``figure`` is what the picture export saves)
    neighbours: Any  # the NeighboursPanel (contextual and static tables)
    selection_list: Any  # the selected points' table
    sweep_panel: Any  # the LayerSweepPanel
    sentence_panel: Any  # the SentencePanel

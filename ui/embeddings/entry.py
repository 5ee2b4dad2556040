"""The embeddings view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.embeddings import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("embeddings", about.TITLE, about.HTML,
                  "lm_workbench.ui.embeddings.explorer_view:EmbeddingExplorerView", "Ctrl+6", frozenset({"corpus"}), short_title="Embed")

"""The Retrieval view's registry entry: its tab, About text, class (imported when registered) and inputs."""

from lm_workbench.ui.retrieval import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("retrieval", about.TITLE, about.HTML, "lm_workbench.ui.retrieval.retrieval_view:RetrievalView", None,
                  frozenset({"corpus"}), short_title="Search")

"""The Retrieval view's registry entry: its tab, About text, class (imported when registered) and inputs."""

from ui.retrieval import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("retrieval", about.TITLE, about.HTML, "ui.retrieval.retrieval_view:RetrievalView", None,
                  frozenset({"corpus"}), short_title="Search")

"""The Compare view's registry entry: its tab, About text, class (imported when registered) and inputs."""

from lm_workbench.ui.compare import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("compare", about.TITLE, about.HTML, "lm_workbench.ui.compare.compare_view:CompareView", None,
                  frozenset({"text"}), short_title="A | B")

"""The heads view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.heads import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("heads", about.TITLE, about.HTML, "lm_workbench.ui.heads.heads_view:HeadsView", None, frozenset({"text"}))

"""The heads view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.heads import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("heads", about.TITLE, about.HTML, "ui.heads.heads_view:HeadsView", None, frozenset({"text"}))

"""The runs view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.runs import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("runs", about.TITLE, about.HTML, "ui.runs.runs_browser:RunsBrowser", "Ctrl+R")

"""The runs view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.runs import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("runs", about.TITLE, about.HTML, "lm_workbench.ui.runs.runs_browser:RunsBrowser", "Ctrl+R")

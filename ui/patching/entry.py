"""The patching view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.patching import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("patching", about.TITLE, about.HTML, "lm_workbench.ui.patching.patching_view:PatchingView", None, frozenset(),
                  short_title="Patch")

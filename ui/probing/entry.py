"""The probing view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.probing import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("probing", about.TITLE, about.HTML,
                  "lm_workbench.ui.probing.probing_view:ProbingView", "Ctrl+7", frozenset({"corpus"}), short_title="Probe")

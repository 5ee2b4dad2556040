"""The tokens view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.tokens import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("tokens", about.TITLE, about.HTML,
                  "lm_workbench.ui.tokens.token_panel:TokenPanel", "Ctrl+1", frozenset({"text", "pair"}))

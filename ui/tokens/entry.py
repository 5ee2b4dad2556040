"""The tokens view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.tokens import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("tokens", about.TITLE, about.HTML,
                  "ui.tokens.token_panel:TokenPanel", "Ctrl+1", frozenset({"text", "pair"}))

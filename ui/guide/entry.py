"""The Guide view's registry entry: its tab (no function key: F1, F5, F6 and F10 are taken), About text, class."""

from lm_workbench.ui.guide import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("guide", about.TITLE, about.HTML, "lm_workbench.ui.guide.guide_view:GuideView", None, frozenset())

"""The lens view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.lens import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("lens", about.TITLE, about.HTML, "lm_workbench.ui.lens.lens_view:LensView", "Ctrl+4", frozenset({"text"}),
                  short_title="Lens")

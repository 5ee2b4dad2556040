"""The masking_lab view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.masking_lab import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("masking_lab", about.TITLE, about.HTML,
                  "lm_workbench.ui.masking_lab.masking_lab_view:MaskingLabView", "Ctrl+5", frozenset({"text"}), short_title="Mask")

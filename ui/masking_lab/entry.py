"""The masking_lab view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.masking_lab import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("masking_lab", about.TITLE, about.HTML,
                  "ui.masking_lab.masking_lab_view:MaskingLabView", "Ctrl+5", frozenset({"text"}), short_title="Mask")

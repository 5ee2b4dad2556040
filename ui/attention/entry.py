"""The attention view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.attention import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("attention", about.TITLE, about.HTML,
                  "lm_workbench.ui.attention.attention_view:AttentionView", "Ctrl+2", frozenset({"text", "pair"}), short_title="Attn")

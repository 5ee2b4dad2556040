"""The finetune view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.finetune import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("finetune", about.TITLE, about.HTML,
                  "lm_workbench.ui.finetune.finetune_view:FineTuneView", "Ctrl+8", frozenset({"corpus"}), short_title="Tune")

"""The pretrain view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.pretrain import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("pretrain", about.TITLE, about.HTML,
                  "lm_workbench.ui.pretrain.pretrain_view:TrainingView", "Ctrl+Shift+P", frozenset({"corpus"}), short_title="Train")

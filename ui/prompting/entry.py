"""The prompting view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.prompting import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("prompting", about.TITLE, about.HTML,
                  "lm_workbench.ui.prompting.prompting_view:PromptingView", "Ctrl+9", frozenset({"corpus"}), short_title="Prompt")

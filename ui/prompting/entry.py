"""The prompting view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.prompting import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("prompting", about.TITLE, about.HTML,
                  "ui.prompting.prompting_view:PromptingView", "Ctrl+9", frozenset({"corpus"}), short_title="Prompt")

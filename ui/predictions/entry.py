"""The predictions view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from lm_workbench.ui.predictions import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("predictions", about.TITLE, about.HTML,
                  "lm_workbench.ui.predictions.predictions_view:PredictionsView", "Ctrl+3", frozenset({"text"}), short_title="Predict")

"""The predictions view's registry entry: its tab, About text, class (imported when registered), shortcut and inputs."""

from ui.predictions import about
from ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("predictions", about.TITLE, about.HTML,
                  "ui.predictions.predictions_view:PredictionsView", "Ctrl+3", frozenset({"text"}), short_title="Predict")

"""The Features view's registry entry."""

from lm_workbench.ui.features import about
from lm_workbench.ui.view_kit.view_entry import ViewEntry

ENTRY = ViewEntry("features", about.TITLE, about.HTML, "lm_workbench.ui.features.features_view:FeaturesView", None,
                  frozenset({"text"}))

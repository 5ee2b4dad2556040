"""The analysis views: attention (head view, model grid, heatmap), predictions, logit lens, masking & noising lab.

Each view is a ``ModelView`` (``ui.shell.view_base``): it says what it needs
computed for the current model and text, and ``ui.shell.view_host.ViewHost`` runs
that through the view's ``ViewContext`` when the view is visible. Each has
one entry in ``ui.shell.view_registry``.
"""

from ui import qt_refcount_fix

qt_refcount_fix.apply()  # these views paint thousands of shapes a frame: see that module

"""Compare: a model B beside model A (the model panel's "Compare with…", the Runs tab's "Compare with this").

``model_b``: which model B is and its load bookkeeping (Qt-free); ``view_tasks``: B's load, the layer × layer CKA
of A and B, and B's side of the paired views (its tokens, its encoding with attentions, its predictions).
Explain's pair is ``lm_workbench.attribution.view_tasks.prediction_in_a_and_b_job``; the lens's B table is
``lm_workbench.lens.view_tasks.logit_lens_of_b``.
"""

from lm_workbench.callable_packages import make_callable as _make_callable

_make_callable(__name__)  # lm_workbench.compare(...) is the public API's function (lm_workbench.api)

from lm_workbench.callable_packages import make_callable as _make_callable

_make_callable(__name__)  # lm_workbench.runs(...) is the public API's function (lm_workbench.api)

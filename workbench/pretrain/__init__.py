"""Pre-training runs: the spec, the in-process runner, the long-run job and the course models."""

from lm_workbench.callable_packages import make_callable as _make_callable

_make_callable(__name__)  # lm_workbench.pretrain(...) is the public API's function (lm_workbench.api)

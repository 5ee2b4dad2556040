"""Built-in contributions (pre-training objectives and more).

They register through the same entry points a third-party package would use
and import only ``lm_workbench.engine.plugin_api`` (an import-linter contract and a test
check it). This package's own ``__init__`` also makes ``lm_workbench.plugins(...)`` the public API's function
once the package is imported (``lm_workbench.callable_packages``; light, no torch).
"""
from lm_workbench.callable_packages import make_callable as _make_callable

_make_callable(__name__)  # lm_workbench.plugins(...) is the public API's function (lm_workbench.api)

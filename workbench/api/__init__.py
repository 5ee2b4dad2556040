"""The public Python API of LM Workbench (API version 1.0): every CLI command, one call away.

    import lm_workbench as lw

    m = lw.load("minilm")                       # any spec the model box takes
    r = m.attention("The cat sat.", layer=0, head=0)
    r.weights, r.to_dict(), r.to_pandas(), r.plot()
    logits, cache = m.run_with_cache("The cat sat.", names=["blocks.0.hook_resid_post"])
    lw.compare("minilm", "course:bert", text=["The cat sat."])

Public: the names in ``__all__`` here (also importable from ``lm_workbench``); everything else is internal.
Arguments and defaults are the CLI's (``lm-workbench COMMAND --help``; the typed requests of
``lm_workbench.requests``), results are objects whose ``to_dict()`` is the command's ``--json``, errors are
``WorkbenchError`` subclasses with the CLI's one line. Deprecation policy: ``docs/python-api.md``.
Importing this package is light (no torch, no Qt): a call imports what it needs; only ``gui()`` imports Qt.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.api.naming import FUNCTIONS as _FUNCTIONS

API_VERSION = "1.0"

_NAMES = {
    "load": "lm_workbench.api.model", "Model": "lm_workbench.api.model",
    "Result": "lm_workbench.command_results.results", "EncodeResult": "lm_workbench.command_results.results",
    "RunResult": "lm_workbench.command_results.results",
    "ArgumentError": "lm_workbench.api.runner", "WorkbenchError": "lm_workbench.engine.errors",
    "self_test": "lm_workbench.api.extras",
    **{name: "lm_workbench.api.functions" for name in dict.fromkeys(_FUNCTIONS.values())},  # one per command
}

__all__ = ["API_VERSION", *_NAMES]


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'lm_workbench.api' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""The application core: settings, run store, job lanes, plugin discovery, CLI. No Qt.

Importing the package sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment already says otherwise, before any
torch import: OpenMP's default lets an idle thread spin for a while before it sleeps, which on a machine doing
other work turns two threads into a contest for the same cores. Measured here (a 4-layer, 256-wide GPT-2 training
step, batch 8 × 128, 2 threads, the machine at load 5-6 on 2 cores): 5.3-8.1 s a step with the default, 1.3-2.3 s
passive, as fast as one thread (issue 48: a course-model build was 17x slower beside other work).

The public Python API (``lm_workbench.api``, docs/python-api.md) is reachable from here: ``lm_workbench.load``,
``lm_workbench.compare``... are looked up on first use, so ``import lm_workbench`` stays light (no torch, no Qt).
"""

import os as _os

_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def __getattr__(name: str):
    """The public API's names (``lm_workbench.api.__all__``), imported on first use."""
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    api = importlib.import_module("lm_workbench.api")
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module 'lm_workbench' has no attribute {name!r}")

"""Five public API names are also internal subpackages of ``lm_workbench`` (``compare``, ``finetune``, ``plugins``,
``pretrain``, ``runs``): once one is imported, Python binds ``lm_workbench.<name>`` to the package, so
``lw.runs()`` would find a module. Each of these packages calls ``make_callable(__name__)`` first: the package
stays a package (its submodules import as before) and calling it calls the API function of its name
(``lm_workbench.api.<name>``), with that function's signature for ``help`` and ``inspect``. Light: no torch.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import Any


class CallablePackage(types.ModuleType):
    """A package that, called, runs the public API function of its own name."""

    def _api_function(self) -> Any:
        return getattr(importlib.import_module("lm_workbench.api"), self.__name__.rsplit(".", 1)[1])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._api_function()(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.signature(self._api_function())


def make_callable(name: str) -> None:
    """Make the package ``name`` (being imported) a ``CallablePackage``."""
    sys.modules[name].__class__ = CallablePackage

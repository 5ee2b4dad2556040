"""Lazy re-exports: a workbench module that hands the views a few engine names without importing the engine.

A feature's ``for_views.py`` lists, engine module by module (``engine_names``), what its views use from the
engine (types, constants and the small pure functions a widget calls). The views import those names from the workbench module, so ``ui/`` depends
on the engine only through its names, errors, progress and result types (``tests/architecture/
test_ui_engine_imports.py``). The engine module is imported when a name is first read (PEP 562), never at the
view's import: a view that imported torch lazily still does.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_exports(table: dict[str, str], module_name: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``table`` (exported name -> engine module's dotted name).

    Raises ``AttributeError`` for a name not in the table (as a plain module does).
    """

    def __getattr__(name: str) -> Any:  # noqa: N807
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return getattr(importlib.import_module(source), name)

    return __getattr__


def engine_names(by_module: dict[str, str]) -> dict[str, str]:
    """The table ``lazy_exports`` serves, from engine module (dotted, below ``lm_workbench.engine``) -> the names
    taken from it, space-separated: ``{"attention_grid": "grid_values THUMB"}``."""
    return {name: f"lm_workbench.engine.{module}" for module, names in by_module.items() for name in names.split()}


def engine_exports(module_name: str, by_module: dict[str, str]
                   ) -> tuple[dict[str, str], list[str], Callable[[str], Any]]:
    """A ``for_views`` module's three parts from its table (as ``engine_names`` takes it): the name -> engine
    module table, ``__all__`` (sorted) and the module ``__getattr__``:
    ``FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {"attention_grid": "grid_values THUMB"})``."""
    table = engine_names(by_module)
    return table, sorted(table), lazy_exports(table, module_name)

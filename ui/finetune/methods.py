"""The fine-tuning methods the tab offers: every plugin in ``lm_workbench.finetune_methods`` that loads.

A method whose module fails to import (or that is not a ``FineTuneMethod``)
is left out and its reason kept in ``problems``, so one broken plugin never
empties the combo box. The built-ins come first in the issue's order, then
third-party methods by name.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from engine.finetune.method_api import FineTuneMethod

GROUP = "lm_workbench.finetune_methods"
ORDER = ("full", "features", "lora", "prefix", "prompt", "houlsby", "pfeiffer", "bitfit")


def load_methods() -> tuple[dict[str, Any], dict[str, str]]:
    """(name -> method instance, name -> why it could not be loaded)."""
    methods: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for ep in entry_points(group=GROUP):
        try:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, FineTuneMethod)):
                raise TypeError(f"{ep.value} is not a FineTuneMethod")
            methods[ep.name] = cls()
        except Exception as exc:  # a plugin's import may raise anything
            problems[ep.name] = f"{type(exc).__name__}: {exc}"
    rank = {name: i for i, name in enumerate(ORDER)}
    ordered = sorted(methods, key=lambda n: (rank.get(n, len(ORDER)), n))
    return {n: methods[n] for n in ordered}, problems

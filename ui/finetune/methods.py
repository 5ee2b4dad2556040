"""The fine-tuning methods the tab offers: every plugin in ``lm_workbench.finetune_methods`` that loads.

A method that fails to load (``find_method`` says why) is left out and its
reason kept, so one broken plugin never empties the combo box. The
built-ins come first in the issue's order, then third-party methods by name.
"""

from __future__ import annotations

from typing import Any

from engine.errors import WorkbenchError
from engine.finetune.method_api import FineTuneMethod
from workbench.finetune.method_lookup import find_method, method_names

ORDER = ("full", "features", "lora", "prefix", "prompt", "houlsby", "pfeiffer", "bitfit")


def load_methods() -> tuple[dict[str, Any], dict[str, str]]:
    """(name -> method instance, name -> why it could not be loaded)."""
    methods: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name in method_names():
        try:
            method = find_method(name)
        except WorkbenchError as exc:
            problems[name] = str(exc)
            continue
        if isinstance(method, FineTuneMethod):
            methods[name] = method
        else:
            problems[name] = f"{type(method).__name__} is not a FineTuneMethod"
    rank = {name: i for i, name in enumerate(ORDER)}
    return {n: methods[n] for n in sorted(methods, key=lambda n: (rank.get(n, len(ORDER)), n))}, problems

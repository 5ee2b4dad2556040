"""The fine-tuning methods the tab offers: the working plugins of the ``finetune-method`` kind.

A method that cannot be used (its import failed, it is a disabled folder
plugin) is left out and its reason kept, so one broken plugin never empties
the combo box. The built-ins come first in ``ORDER`` (full fine-tuning, then
the lighter methods), then the others by name.
"""

from __future__ import annotations

from typing import Any


ORDER = ("full", "features", "lora", "prefix", "prompt", "houlsby", "pfeiffer", "bitfit", "parallel-adapter", "mam",
         "dora", "rslora", "ia3", "vera", "loha", "lokr", "oft")


def load_methods(settings: Any = None) -> tuple[dict[str, Any], dict[str, str]]:
    """(name -> method instance, name -> why it cannot be used). Imports the plugins (and torch) when called."""
    from lm_workbench.extensions.records import OK
    from lm_workbench.extensions.registry import FineTuneMethodRegistry

    registry = FineTuneMethodRegistry.discover(settings)
    methods = registry.methods()
    problems = {r.name: r.error or r.status for r in registry.records
                if r.kind == registry.kind.name and r.status != OK and r.name not in methods}
    rank = {name: i for i, name in enumerate(ORDER)}
    return {n: methods[n] for n in sorted(methods, key=lambda n: (rank.get(n, len(ORDER)), n))}, problems

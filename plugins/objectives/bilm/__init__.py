"""The ``bilm`` objective (ELMo's bidirectional language model): ``objective``.

The entry point ``lm_workbench.plugins.objectives.bilm:BidirectionalLM`` names this package.
"""

from lm_workbench.plugins.objectives.bilm.objective import BidirectionalLM

__all__ = ["BidirectionalLM"]

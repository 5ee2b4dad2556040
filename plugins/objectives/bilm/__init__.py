"""The ``bilm`` objective (ELMo's bidirectional language model): ``objective``.

The entry point ``plugins.objectives.bilm:BidirectionalLM`` names this package.
"""

from plugins.objectives.bilm.objective import BidirectionalLM

__all__ = ["BidirectionalLM"]

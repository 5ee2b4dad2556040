"""The ``mlm`` objective (BERT, RoBERTa) with its next-sentence pairs: ``objective`` and ``nsp``.

The entry point ``plugins.objectives.mlm:MaskedLM`` names this package.
"""

from plugins.objectives.mlm.objective import MaskedLM

__all__ = ["MaskedLM"]

"""The ``mlm`` objective (BERT, RoBERTa) with its next-sentence pairs: ``objective`` and ``nsp``.

The entry point ``lm_workbench.plugins.objectives.mlm:MaskedLM`` names this package.
"""

from lm_workbench.plugins.objectives.mlm.objective import MaskedLM

__all__ = ["MaskedLM"]

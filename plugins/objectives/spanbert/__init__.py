"""The ``spanbert`` objective (SpanBERT) with its span-boundary head: ``objective`` and ``head``.

The entry point ``lm_workbench.plugins.objectives.spanbert:SpanBERT`` names this package.
"""

from lm_workbench.plugins.objectives.spanbert.objective import SpanBERT

__all__ = ["SpanBERT"]

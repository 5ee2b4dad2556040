"""The ``spanbert`` objective (SpanBERT) with its span-boundary head: ``objective`` and ``head``.

The entry point ``plugins.objectives.spanbert:SpanBERT`` names this package.
"""

from plugins.objectives.spanbert.objective import SpanBERT

__all__ = ["SpanBERT"]

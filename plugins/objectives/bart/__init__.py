"""The ``bart`` objective (BART's noising functions): ``objective`` and ``noise``.

The entry point ``plugins.objectives.bart:BART`` names this package.
"""

from plugins.objectives.bart.objective import BART

__all__ = ["BART"]

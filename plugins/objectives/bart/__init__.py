"""The ``bart`` objective (BART's noising functions): ``objective`` and ``noise``.

The entry point ``lm_workbench.plugins.objectives.bart:BART`` names this package.
"""

from lm_workbench.plugins.objectives.bart.objective import BART

__all__ = ["BART"]

"""``python -m lm_workbench``: the same as the ``lm-workbench`` command."""

from lm_workbench.cli.main import entry

entry()

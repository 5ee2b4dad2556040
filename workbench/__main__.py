"""``python -m workbench``: the same as the ``lm-workbench`` command."""

from workbench.cli.main import entry

entry()

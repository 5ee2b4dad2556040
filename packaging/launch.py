"""The bundle's entry script: the same as the ``lm-workbench`` console command."""

from lm_workbench.cli.main import entry

if __name__ == "__main__":
    entry()

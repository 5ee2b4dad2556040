"""The headless command line: ``lm-workbench <command> ...``."""

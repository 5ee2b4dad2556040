"""Built-in contributions (pre-training objectives and more).

They register through the same entry points a third-party package would use
and import only ``lm_workbench.engine.plugin_api`` (an import-linter contract and a test
check it).
"""

"""The built-in prompt sets, registered under the ``lm_workbench.prompt_sets`` entry-point group."""

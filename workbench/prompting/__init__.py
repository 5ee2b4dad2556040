"""The prompting lab's workbench side: prompt-set files, evaluation runs and their parameters (no Qt)."""

"""Retrieval (issue 32): the tab's Qt-free state (``state``), its short tasks (``view_tasks``) and the CLI's glue."""

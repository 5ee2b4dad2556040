"""Retrieval (issue 32): the tab's Qt-free state (``state``), its jobs (``jobs``) and the CLI's glue."""

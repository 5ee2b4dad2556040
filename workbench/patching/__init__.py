"""The Patching tab's state (Qt-free)."""

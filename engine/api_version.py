"""The plugin API's version, in a module of its own so the engine's parts can read it.

``engine.plugin_api`` re-exports it; it rises when that surface changes
incompatibly, and a plugin declaring another version is refused.
"""

API_VERSION = 1

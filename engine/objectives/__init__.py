"""Pre-training objectives: the protocol plugins implement, and what they build on.

``api`` (the ``Objective`` base class and its ``Requirements``),
``config_fields`` (settings as dataclasses), ``preview`` (what happened at
each position), ``batching`` (padded tensors), ``vocab`` (special ids, word
boundaries), ``sampling`` (seeded draws) and ``losses`` (cross-entropy).
Plugins reach all of it through ``engine.plugin_api`` only.
"""

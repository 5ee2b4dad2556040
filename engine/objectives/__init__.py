"""Pre-training objectives: the protocol plugins implement, and what they build on.

``api`` (the ``Objective`` base class, its ``Requirements`` and the
``LossContext`` its loss receives), ``config_fields`` (settings as
dataclasses), ``preview`` (what happened at each position), ``batching``
(padded tensors), ``vocab`` (special ids, word boundaries), ``sampling``
(seeded draws), ``losses`` (cross-entropy), ``masking`` (BERT's budget,
selection and 80/10/10), ``spans`` (span lengths, T5's noise mask and
sentinels) and ``sentences``. Plugins reach all of it through
``lm_workbench.engine.plugin_api`` only.
"""

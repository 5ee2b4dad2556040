"""The engine's public plugin API: the only engine module plugins may import.

Plugins (the built-in objectives in ``plugins/`` and third-party packages)
build on what is exported here and nothing else, so the engine's inside can
change without breaking them; ``API_VERSION`` rises when this surface changes
incompatibly. Besides errors, progress and cancellation and the model
families, it carries the pre-training objective protocol (``Objective``,
``Requirements``, ``Batch``, ``Preview``, ``PositionKind``, config fields)
and the helpers objectives share (vocabulary facts, seeded draws, padding,
cross-entropy). See docs/writing-an-objective.md.
"""

from engine.api_version import API_VERSION
from engine.errors import Cancelled, WorkbenchError
from engine.families import Family
from engine.objectives.api import (
    BILM, HEADS, TOKENS, Objective, Requirements, call_loss, example_ids_for, freeze_auxiliary, require_examples,
)
from engine.objectives.batching import Batch, collate, pad_rows
from engine.objectives.config_fields import ConfigField, config_fields, config_from_strings, validate_config
from engine.objectives.losses import (
    causal_lm_cross_entropy, decoder_inputs_from_labels, model_device, seq2seq_denoising_loss,
    token_cross_entropy,
)
from engine.objectives.preview import CODE, IGNORE_INDEX, KIND_CODES, PositionKind, Preview, kinds_from_codes
from engine.objectives.sampling import example_rng, round_half_up
from engine.objectives.sentences import sentence_spans
from engine.objectives.vocab import VocabInfo, vocab_info
from engine.progress import CancelToken, Partial, Progress

__all__ = [
    "API_VERSION", "BILM", "Batch", "CODE", "CancelToken", "Cancelled", "ConfigField", "Family", "HEADS",
    "IGNORE_INDEX", "KIND_CODES", "Objective", "Partial", "PositionKind", "Preview", "Progress", "Requirements",
    "TOKENS", "VocabInfo", "WorkbenchError", "call_loss", "causal_lm_cross_entropy", "collate", "config_fields",
    "config_from_strings", "decoder_inputs_from_labels", "example_ids_for", "example_rng", "freeze_auxiliary",
    "kinds_from_codes", "model_device", "pad_rows", "require_examples", "round_half_up", "sentence_spans",
    "seq2seq_denoising_loss", "token_cross_entropy", "validate_config", "vocab_info",
]

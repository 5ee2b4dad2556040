"""The engine's public plugin API: the only engine module plugins may import.

Plugins (the built-in objectives in ``plugins/`` and third-party packages)
build on what is exported here and nothing else, so the engine's inside can
change without breaking them. ``API_VERSION`` ("MAJOR.MINOR") rises in its
minor part when this surface grows and in its major part when it changes
incompatibly; a plugin declares the version it was written for
(``api_version``) and ``api_version_problem`` says whether it can run.

Besides errors, progress and cancellation and the model families, it carries
the pre-training objective protocol (``Objective``, ``Requirements``,
``LossContext``, ``Batch``, ``Preview``, ``PositionKind``, config fields) and
the helpers the built-in objectives share: vocabulary facts, seeded draws,
padding, cross-entropy, BERT's masking budget and 80/10/10 treatment,
span-length distributions, T5's noise mask and sentinels, sentence
splitting, and ELMo's words: word splitting, the frequency-sorted word
vocabulary (``<S> </S> <UNK>`` first) and words to character ids. Prompt-set
plugins subclass ``PromptSet`` with ``NamedTemplate`` and ``NamedVerbalizer``
entries (docs/prompt-sets.md). See
docs/writing-an-objective.md.
"""

from engine.api_version import API_VERSION, api_version_problem, parse_api_version
from engine.elmo.characters import MAX_CHARACTERS_PER_TOKEN, batch_to_char_ids
from engine.elmo.words import BOS_ID, EOS_ID, UNK_ID, WORD_SPECIALS, build_word_vocabulary, split_words
from engine.errors import Cancelled, WorkbenchError
from engine.families import Family
from engine.objectives.api import (
    BILM, HEADS, TOKENS, LossContext, Objective, Requirements, example_ids_for, freeze_auxiliary, require_examples,
)
from engine.objectives.batching import Batch, collate, pad_rows
from engine.objectives.config_fields import ConfigField, config_fields, config_from_strings, validate_config
from engine.objectives.losses import (
    causal_lm_cross_entropy, decoder_inputs_from_labels, model_device, seq2seq_denoising_loss,
    token_cross_entropy,
)
from engine.objectives.masking import (
    apply_treatments, budget, check_shares, draw_treatments, select_positions, whole_word_selection,
)
from engine.objectives.preview import CODE, IGNORE_INDEX, KIND_CODES, PositionKind, Preview, kinds_from_codes
from engine.objectives.sampling import example_rng, round_half_up
from engine.objectives.sentences import sentence_spans
from engine.objectives.spans import (
    Sentinels, apply_sentinels, draw_poisson_lengths, random_segmentation, random_spans_noise_mask,
    span_length_pmf, trim_to_budget,
)
from engine.objectives.vocab import VocabInfo, vocab_info
from engine.progress import CancelToken, Partial, Progress
from engine.prompting.prompt_set import NamedTemplate, NamedVerbalizer, PromptSet

__all__ = [
    "API_VERSION", "BILM", "BOS_ID", "Batch", "EOS_ID", "MAX_CHARACTERS_PER_TOKEN", "UNK_ID", "WORD_SPECIALS",
    "batch_to_char_ids", "build_word_vocabulary", "split_words",
    "CODE", "CancelToken", "Cancelled", "ConfigField", "Family", "HEADS",
    "IGNORE_INDEX", "KIND_CODES", "LossContext", "NamedTemplate", "NamedVerbalizer", "Objective", "Partial", "PositionKind", "Preview", "Progress",
    "PromptSet", "Requirements", "Sentinels", "TOKENS", "VocabInfo", "WorkbenchError", "api_version_problem",
    "apply_sentinels", "apply_treatments", "budget", "causal_lm_cross_entropy", "check_shares", "collate",
    "config_fields", "config_from_strings", "decoder_inputs_from_labels", "draw_poisson_lengths",
    "draw_treatments", "example_ids_for", "example_rng", "freeze_auxiliary", "kinds_from_codes", "model_device",
    "pad_rows", "parse_api_version", "random_segmentation", "random_spans_noise_mask", "require_examples",
    "round_half_up", "select_positions", "sentence_spans", "seq2seq_denoising_loss", "span_length_pmf",
    "token_cross_entropy", "trim_to_budget", "validate_config", "vocab_info", "whole_word_selection",
]

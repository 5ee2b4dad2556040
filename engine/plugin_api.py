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

Since 2.1 it also carries the fine-tuning method protocol (``FineTuneMethod``,
``Attachment``, ``TASKS``, ``SITES``) and what the built-in methods share:
the task head's names, freezing, parameter counts, BitFit, bottleneck
adapters, the feature-based model on a scalar mix, LoRA target checking, and
saving trained weights apart from the base (ours and ``peft``'s). See
docs/writing-a-finetune-method.md. Since 2.2, ``supply_prefix``: a peft prefix-tuning model whose prefix the
workbench hands to the model as a prefilled cache, whatever the release calls that argument. Since 2.3,
``UnifiedRow`` (a method's row in He et al.'s unified framework, its ``unified`` field), ``representation_of``
and ``with_representation``, parallel adapters (``add_parallel_adapters``) and ``weight_layers``;
``SENTENCE_TASK`` ("sentence-embedding", S-BERT's task: a pooled sentence vector trained by a similarity loss, the
task model a bare encoder without a head) and ``CLASSIC_TASKS``: ``TASKS`` stays the four tasks with a head, so a
method supports the sentence, instruct or preference task only where its ``tasks`` names it; the loss-side speed
levers: ``causal_lm_loss`` (the head and cross-entropy in chunks of rows), ``masked_lm_forward`` (the vocabulary
head only at the labelled positions), ``linear_cross_entropy`` and ``loss_levers``/``LossLevers`` (the training
loop switches them on for its steps; elsewhere the losses are computed the plain way). ``ffn_out_layers`` and
``FFN_OUT_NAMES``: each family's feed-forward second matrix, from the model anatomy's tables.
"""

from lm_workbench.engine.api_version import API_VERSION, api_version_problem, parse_api_version
from lm_workbench.engine.elmo.characters import MAX_CHARACTERS_PER_TOKEN, batch_to_char_ids
from lm_workbench.engine.elmo.words import BOS_ID, EOS_ID, UNK_ID, WORD_SPECIALS, build_word_vocabulary, split_words
from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.finetune.method_api import SITES, TASKS, Attachment, FineTuneMethod
from lm_workbench.engine.finetune.names import CLASSIC_TASKS, SENTENCE_TASK
from lm_workbench.engine.finetune.methods.feature_sentence import SentenceFeatureModel
from lm_workbench.engine.finetune.names import LORA_SITES_OF_TARGET
from lm_workbench.engine.finetune.unified import UnifiedRow, representation_of, with_representation
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.objectives.api import (
    BILM, HEADS, TOKENS, LossContext, Objective, Requirements, example_ids_for, freeze_auxiliary, require_examples,
)
from lm_workbench.engine.objectives.batching import Batch, collate, pad_rows
from lm_workbench.engine.objectives.config_fields import ConfigField, config_fields, config_from_strings, validate_config
from lm_workbench.engine.objectives.chunked_ce import linear_cross_entropy
from lm_workbench.engine.objectives.levers import LossLevers, loss_levers
from lm_workbench.engine.objectives.lm_heads import MaskedLMOutput, causal_lm_loss, masked_lm_forward
from lm_workbench.engine.objectives.losses import (
    causal_lm_cross_entropy, decoder_inputs_from_labels, model_device, seq2seq_denoising_loss,
    token_cross_entropy,
)
from lm_workbench.engine.objectives.masking import (
    apply_treatments, budget, check_shares, draw_treatments, select_positions, whole_word_selection,
)
from lm_workbench.engine.objectives.preview import CODE, IGNORE_INDEX, KIND_CODES, PositionKind, Preview, kinds_from_codes
from lm_workbench.engine.objectives.sampling import example_rng, round_half_up
from lm_workbench.engine.objectives.sentences import sentence_spans
from lm_workbench.engine.objectives.spans import (
    Sentinels, apply_sentinels, draw_poisson_lengths, random_segmentation, random_spans_noise_mask,
    span_length_pmf, trim_to_budget,
)
from lm_workbench.engine.objectives.vocab import VocabInfo, vocab_info
from lm_workbench.engine.finetune.methods.bitfit import BitFitConfig, apply_bitfit
from lm_workbench.engine.finetune.methods.bottleneck import BottleneckConfig, add_bottleneck_adapters
from lm_workbench.engine.finetune.methods.counting import ParameterCount, count_parameters
from lm_workbench.engine.finetune.methods.feature_based import FEATURE_TASKS, POOLINGS, FeatureBasedModel
from lm_workbench.engine.sentence.names import pooling_name
from lm_workbench.engine.finetune.methods.heads import head_prefixes, is_under, train_only
from lm_workbench.engine.finetune.methods.lora_targets import (
    FFN_OUT_NAMES, LoraTargets, ffn_out_layers, resolve_lora_targets, weight_layers,
)
from lm_workbench.engine.finetune.methods.parallel_adapter import add_parallel_adapters, adapter_parameters, parallel_sites
from lm_workbench.engine.finetune.methods.peft_bridge import load_peft, merge_peft, peft_task_type, save_peft, wrap_with_peft
from lm_workbench.engine.finetune.methods.prefix_cache import supply_prefix
from lm_workbench.engine.finetune.methods.saving import check_architecture, load_trained, read_adapter_config, save_trained
from lm_workbench.engine.progress import CancelToken, Partial, Progress
from lm_workbench.engine.prompting.prompt_set import NamedTemplate, NamedVerbalizer, PromptSet
from lm_workbench.engine.scalar_mix.module import ScalarMix
from lm_workbench.engine.setting import setting

__all__ = [
    "FFN_OUT_NAMES", "ffn_out_layers",
    "LossLevers", "MaskedLMOutput", "causal_lm_loss", "linear_cross_entropy", "loss_levers", "masked_lm_forward",
    "API_VERSION", "BILM", "BOS_ID", "Batch", "EOS_ID", "MAX_CHARACTERS_PER_TOKEN", "UNK_ID", "WORD_SPECIALS",
    "batch_to_char_ids", "build_word_vocabulary", "split_words",
    "CODE", "CancelToken", "Cancelled", "ConfigField", "Family", "HEADS",
    "IGNORE_INDEX", "KIND_CODES", "LossContext", "NamedTemplate", "NamedVerbalizer", "Objective", "Partial",
    "PositionKind", "Preview", "Progress",
    "PromptSet", "Requirements", "Sentinels", "TOKENS", "VocabInfo", "WorkbenchError", "api_version_problem",
    "apply_sentinels", "apply_treatments", "budget", "causal_lm_cross_entropy", "check_shares", "collate",
    "config_fields", "config_from_strings", "decoder_inputs_from_labels", "draw_poisson_lengths",
    "draw_treatments", "example_ids_for", "example_rng", "freeze_auxiliary", "kinds_from_codes", "model_device",
    "pad_rows", "parse_api_version", "random_segmentation", "random_spans_noise_mask", "require_examples",
    "round_half_up", "select_positions", "sentence_spans", "seq2seq_denoising_loss", "setting", "span_length_pmf",
    "token_cross_entropy", "trim_to_budget", "validate_config", "vocab_info", "whole_word_selection",
    # fine-tuning methods (2.1)
    "Attachment", "BitFitConfig", "BottleneckConfig", "FEATURE_TASKS", "FeatureBasedModel", "FineTuneMethod",
    "LORA_SITES_OF_TARGET", "LoraTargets", "POOLINGS", "pooling_name", "ParameterCount", "SENTENCE_TASK", "SITES", "SentenceFeatureModel",
    "ScalarMix", "TASKS", "CLASSIC_TASKS", "add_bottleneck_adapters",
    "apply_bitfit", "check_architecture", "count_parameters", "head_prefixes", "is_under", "load_peft",
    "load_trained", "merge_peft", "peft_task_type", "read_adapter_config", "resolve_lora_targets", "save_peft",
    "save_trained", "train_only", "wrap_with_peft",
    # 2.2
    "supply_prefix",
    # 2.3
    "UnifiedRow", "adapter_parameters", "add_parallel_adapters", "parallel_sites", "representation_of",
    "weight_layers", "with_representation",
]

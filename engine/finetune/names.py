"""Fine-tuning's names that the window, the CLI and the plugins read without importing torch.

Only plain constants live here (the ``*.names`` import contract in pyproject.toml keeps them free of torch,
transformers, peft, numpy and Qt); the engine modules that act on them import them from here.
"""

from __future__ import annotations

from lm_workbench.engine.anatomy import tables
from lm_workbench.engine.sentence.names import (  # noqa: F401 (fine-tuning's names for them)
    MNRL_SCALE, SENTENCE_LOSSES, TRAIN_POOLINGS, TRIPLET_MARGIN,
)

TASKS = ("seq-cls", "token-cls", "qa", "seq2seq", "sentence-embedding", "instruct", "preference")
LABELLED_TASKS = ("seq-cls", "token-cls")  # their labels follow the label rule (lm_workbench.engine.data.labels)
# What a method that declares no tasks supports (FineTuneMethod's default). The tasks added since (the sentence
# task, instruct, preference) are declared by name in each method's ``tasks``, so a plugin written before them never claims one
# it was not tried on.
CLASSIC_TASKS = ("seq-cls", "token-cls", "qa", "seq2seq")
# The task the S-BERT recipe trains (issue 32): no head, a pooled sentence vector trained by a similarity loss.
SENTENCE_TASK = "sentence-embedding"
# The tasks the plugin API's ``TASKS`` names (API 2.2 and before): the classic four, so a method that declares "all
# tasks" with it gains none of the newer tasks.
HEAD_TASKS = CLASSIC_TASKS
# The sentence task's losses and poolings: sentence encoders' own names (lm_workbench.engine.sentence.names).
SENTENCE_TRAIN_POOLINGS = TRAIN_POOLINGS

# Places in a transformer block (and around it) a method can attach to; the diagram draws these boxes.
SITES = (
    "embeddings",  # the input embeddings (prompt tuning prepends virtual tokens here)
    "prefix",  # extra key/value vectors in every attention layer (prefix tuning)
    "query", "key", "value",  # the attention projections
    "attention_output",  # the attention output projection, before its residual add + LayerNorm
    "ffn_in", "ffn_out",  # the feed-forward block's two matrices
    "layer_norm",  # LayerNorm scales and shifts
    "bias",  # every bias vector
    "layers",  # the block outputs as features (feature-based: a scalar mix over frozen layers)
    "head",  # the task head, trained by every method
    "parallel_attention", "parallel_ffn",  # a parallel adapter beside the attention / feed-forward sublayer
)

# The metric each task is ranked by.
PRIMARY_METRIC = {"seq-cls": "accuracy", "token-cls": "f1", "qa": "f1", "seq2seq": "rougeL", "instruct": "rougeL",
                  "preference": "preference_accuracy"}
PRIMARY_METRIC[SENTENCE_TASK] = "spearman"  # of the validation pairs' cosines against their gold scores

# LoRA's role aliases (GPT-2's fused c_attn, ...) and which block sites a target name stands for: the model
# anatomy's tables, the one place that names each family's layers.
LORA_ROLE_ALIASES = tables.LORA_ROLE_ALIASES
LORA_SITES_OF_TARGET = tables.LORA_SITES_OF_TARGET

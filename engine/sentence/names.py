"""Sentence encoders' names that the window, the CLI and the plugins read without importing torch or numpy.

One vocabulary of pooling names, used by tuning, retrieval, embeddings, STS and probing (each place offers a part
of it, named here):

- ``mean``: the mean of the real tokens' vectors (special tokens included, as sentence-transformers does);
- ``cls``: the first token's vector ([CLS]); ``first`` is an old spelling of it (the feature-based method's);
- ``max``: the element-wise maximum over the real tokens;
- ``mean_sqrt_len``: the sum of the real tokens' vectors over the square root of their count;
- ``last``: the last real token's vector (a left-to-right model's summary);
- ``model``: the pooling the model's folder declares (``lm_workbench.engine.sentence.model_pooling``).

Word pooling over one word's subwords is another vocabulary (``lm_workbench.engine.embeddings.names``).
"""

from __future__ import annotations

POOLINGS = ("mean", "cls", "max", "mean_sqrt_len", "last", "model")
POOLING_MODES = ("mean", "cls", "max", "mean_sqrt_len", "last")  # computed from token vectors ("model" resolves to one)
POOLING_ALIASES = {"first": "cls"}  # old spelling -> name; accepted wherever the old spelling was

# What each place offers (parts of POOLINGS, in the order its menu shows them).
EMBEDDING_POOLINGS = ("mean", "cls", "model", "max")  # the Embeddings view's sentences, probing, STS, scalar mix
RETRIEVAL_POOLINGS = ("mean", "cls", "max", "model")  # passages
TRAIN_POOLINGS = ("mean", "cls", "max")  # the sentence-embedding task (a run records one of these)
FEATURE_POOLINGS = ("cls", "mean", "last")  # the feature-based method's classification head (old name: first)

# The sentence-transformers Pooling module's config flag for each mode (1_Pooling/config.json).
ST_POOLING_FLAGS = {
    "cls": "pooling_mode_cls_token",
    "mean": "pooling_mode_mean_tokens",
    "max": "pooling_mode_max_tokens",
    "mean_sqrt_len": "pooling_mode_mean_sqrt_len_tokens",
    "last": "pooling_mode_lasttoken",
}

# The sentence task's losses (lm_workbench.engine.sentence.losses).
SENTENCE_LOSSES = ("triplet", "cosine", "cosent", "mnrl")
TRIPLET_MARGIN = 1.0  # ε of the triplet loss, as in the S-BERT paper (Reimers & Gurevych 2019: Euclidean, ε = 1)
MNRL_SCALE = 20.0  # the cosine scale of the in-batch-negatives loss (sentence-transformers' default)


def pooling_name(name: str) -> str:
    """The vocabulary's name for ``name`` (an alias such as ``first`` becomes ``cls``); other names unchanged."""
    return POOLING_ALIASES.get(name, name)

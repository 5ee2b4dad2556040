"""The embeddings' names that the window and the CLI read without importing numpy or torch.

Only plain constants live here (the ``*.names`` import contract in pyproject.toml keeps them light); the
engine modules that act on them import them from here.
"""

from __future__ import annotations

# How one occurrence's subword vectors become one vector (lm_workbench.engine.embeddings.representation).
WORD_POOLINGS = ("mean", "first", "last")
# How a sentence's token vectors become one vector (lm_workbench.engine.embeddings.sentence_embeddings).
SENTENCE_POOLINGS = ("mean", "cls", "model", "max")  # max: the element-wise maximum over the tokens
# The 2-D maps (lm_workbench.engine.embeddings.projection).
PROJECTION_METHODS = ("pca", "umap", "tsne")

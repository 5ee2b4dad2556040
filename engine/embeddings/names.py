"""The embeddings' names that the window and the CLI read without importing numpy or torch.

Only plain constants live here (the ``*.names`` import contract in pyproject.toml keeps them light); the
engine modules that act on them import them from here.
"""

from __future__ import annotations

from lm_workbench.engine.sentence.names import EMBEDDING_POOLINGS

# How one occurrence's subword vectors become one vector (lm_workbench.engine.embeddings.representation): word
# pooling, another vocabulary than sentence pooling.
WORD_POOLINGS = ("mean", "first", "last")
# How a sentence's token vectors become one vector: the part of the one vocabulary (lm_workbench.engine.sentence.names)
# the Embeddings view's sentences, probing, STS and the scalar mix offer. max: the element-wise maximum.
SENTENCE_POOLINGS = EMBEDDING_POOLINGS
# The 2-D maps (lm_workbench.engine.embeddings.projection).
PROJECTION_METHODS = ("pca", "umap", "tsne")

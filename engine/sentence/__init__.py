"""Sentence encoders: token vectors to one sentence vector, and what trains and saves them.

``names``: the one vocabulary of pooling names (and the sentence losses' names); ``pooling``: the one pooling
implementation (torch; numpy callers go through it too); ``model_pooling``: the one place that resolves the pooling
``model`` (what a sentence-transformers folder, or a sentence-embedding run's folder, declares); ``data``: the
readers of scored pairs, triplets and NLI files; ``losses``: triplet, cosine, CoSENT and in-batch negatives;
``batches``: the in-batch losses' data order; ``training``: encoding, batches and the loop's task;
``st_folder``: the sentence-transformers folder a run that folds into weights saves; ``encoder``: a method's
adapted encoder answering as a bare one. Word pooling over subwords is another vocabulary
(``lm_workbench.engine.embeddings.names.WORD_POOLINGS``).
"""

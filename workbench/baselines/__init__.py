"""The lectures' baselines as recorded runs: ``tfidf-lr`` and ``bilstm`` (``lm_workbench.baselines.runs``)."""

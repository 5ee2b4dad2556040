"""Retrieval with sentence encoders: a corpus of passages encoded once (cached on disk, resumable), searched
exactly by a matrix product over unit vectors, beside BM25, and measured on BEIR-shaped relevance judgements.

``corpus`` and ``beir`` read the data; ``encode`` turns passages into L2-normalised float32 vectors with the
model's pooling; ``index`` runs the encoding as a job with progress, cancel and resume from ``cache``;
``search`` ranks exactly; ``bm25`` wraps the ``bm25s`` library; ``metrics`` scores rankings as trec_eval does;
``evaluate`` puts them together for a BEIR folder.
"""

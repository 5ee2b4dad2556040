"""The Retrieval tab (issue 32): search a corpus with the loaded sentence encoder, beside BM25 and model B."""

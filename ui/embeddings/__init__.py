"""The Embeddings tab: contextual vs static vectors of word occurrences over a corpus."""

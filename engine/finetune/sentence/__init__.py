"""The sentence-embedding task (S-BERT, Reimers & Gurevych 2019): a bare encoder whose pooled token vectors are
trained by a similarity loss. ``data``: scored pairs, triplets and NLI files; ``losses``: triplet, cosine, CoSENT
and in-batch negatives; ``pooling``: mean / [CLS] / max over the token vectors; ``training``: the loop's task and
the Spearman validation; ``st_folder``: the sentence-transformers folder a run that folds into weights saves."""

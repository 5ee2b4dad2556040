"""Pre-training from scratch: corpora, tokenizer training, architectures and packed datasets.

The data side of pre-training; the training loop itself is ``lm_workbench.engine.training``.
Modules: ``corpus`` (streamed files, documents; ``python_docs_corpus``),
``tokenizer_training`` (WordPiece, byte-level BPE, Unigram per family),
``architectures`` (presets, configs, models, parameter counts), ``dataset``
(``prepare_dataset``: tokenize, split, pack, cache on disk; ``ExampleSampler``).
"""

"""The built-in pre-training objectives, registered under the ``lm_workbench.objectives``
entry-point group in pyproject.toml.

clm (GPT), mlm (BERT, RoBERTa; a package with its next-sentence pairs),
spanbert (SpanBERT; a package with its span-boundary head), bart (BART's
noising functions; a package with them), t5-span (T5's span corruption) and
distillation (DistilBERT). They import only ``lm_workbench.engine.plugin_api`` (and each
other: distillation masks as mlm does).
"""

"""The built-in pre-training objectives, one module each, registered under the
``lm_workbench.objectives`` entry-point group in pyproject.toml.

clm (GPT), mlm (BERT, RoBERTa), spanbert (SpanBERT), bart (BART's noising
functions) and t5-span (T5's span corruption). They import only
``engine.plugin_api``.
"""

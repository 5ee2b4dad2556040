"""What each kind of tuning fills in of the one lifecycle (``lm_workbench.engine.finetune.lifecycle``): ``base`` the
protocol, ``classic`` the head tasks (sequence and token classification, QA, sequence-to-sequence), ``sentence``
sentence embeddings, ``instruct`` instruction tuning; preference tuning's is ``lm_workbench.engine.preference.task``."""

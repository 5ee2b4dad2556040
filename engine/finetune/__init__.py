"""Fine-tuning: subword-label alignment, encoding, the task model, the run (``train.py``, on the one training
loop), validation, inference, the method API and offline demo sets; merging runs (``merging``, ``merge_math``: exact
linear task arithmetic, peft's factor-wise linear, TIES and DARE, and folding into W₀) and what a method
costs (``footprint``: checkpoint bytes, training-state memory; ``forgetting``: the base's LM loss before/after
on a held-out text).

The task files are read by ``lm_workbench.engine.data.tasks`` and scored by ``lm_workbench.engine.maths.metrics``; prompting uses both
too, so neither lives here.
"""

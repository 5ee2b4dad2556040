"""Fine-tuning: subword-label alignment, encoding, the task model, the run (``job.py``, on the one training
loop), validation, inference, the method API and offline demo sets.

The task files are read by ``engine.data.tasks`` and scored by ``engine.maths.metrics``; prompting uses both
too, so neither lives here.
"""

"""What the training view says of the course models, and the default number of steps.

Course models are tiny BERT, GPT-2, BART, T5 and ELMo models that
``lm_workbench.pretrain.course_models`` defines (settings tuned for Python's own
documentation, which every machine has). The window builds them one after the
other (``lm_workbench.ui.pretrain.course_builder``); the view follows each run
and says plainly what they are.
"""

from __future__ import annotations

COURSE_TOOLTIP = ("Choose which tiny BERT, GPT-2, BART, T5 and ELMo models to pre-train on Python's documentation "
                  "(with an estimate of the time), so every view has a real model of each family offline")
COURSE_NOTE = ("Building the course models (Course models… shows each, its estimate and what ran): tiny models "
               "trained on the English text of Python's documentation, for demonstrations, one after the other. "
               "Each is added to the recent models when it finishes.")


def default_steps() -> int:
    """``TrainingConfig``'s default number of steps (for a run that does not set it)."""
    from lm_workbench.pretrain.for_views import TrainingConfig

    return TrainingConfig().steps

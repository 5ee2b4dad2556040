"""What the training view needs from the pre-training side: the job target, course models, texts.

Course models are tiny BERT, GPT-2, BART, T5 and ELMo models that
``lm_workbench.pretrain.course_models`` defines (settings tuned for Python's own
documentation, which every machine has). The view queues them through the
window's long-run lane, one run each, and says plainly what they are.
"""

from __future__ import annotations

from pathlib import Path

from lm_workbench.pretrain.spec import PretrainSpec

COURSE_TOOLTIP = ("Pre-train tiny BERT, GPT-2, BART, T5 and ELMo models on Python's documentation (a few minutes "
                  "each on a laptop), so every view has a real model of each family offline")
COURSE_NOTE = ("Course models queued: tiny BERT, GPT-2, BART and T5 models (2 layers, 128 wide) and a tiny ELMo "
               "(two 2-layer LSTMs) trained on the "
               "English text of Python's documentation. They are tiny, for demonstrations: real models of each "
               "family to explore in the views, not good language models. Each is added to the recent models "
               "when it finishes.")


def default_steps() -> int:
    """``TrainingConfig``'s default number of steps (for a run that does not set it)."""
    from lm_workbench.engine.training.config import TrainingConfig

    return TrainingConfig().steps


def course_specs(corpus: str | Path | None = None, out_root: str | Path | None = None) -> list[PretrainSpec]:
    """One spec per family; the built-in corpus is written to the course folder when none is given."""
    from lm_workbench.engine.pretrain.python_docs import python_docs_corpus
    from lm_workbench.pretrain.course_models import COURSE_SETTINGS, course_root, course_spec

    root = Path(out_root) if out_root else course_root()
    corpus_path = Path(corpus) if corpus else python_docs_corpus(root / "corpus")
    return [course_spec(family, corpus_path, root) for family in COURSE_SETTINGS]

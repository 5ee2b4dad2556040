"""The offline demo sets shipped with the engine (written by scripts/make_finetune_demo.py and, for preference
tuning, engine/preference/course_data.py)."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError

DATA = Path(__file__).resolve().parent / "data"

# task name (as the CLI's --task spells it; "seq-cls-pair" is the pair variant) -> file
DEMO_FILES = {
    "seq-cls": "sentiment.tsv",
    "seq-cls-pair": "paraphrase.tsv",
    "token-cls": "entities.conll",
    "qa": "qa.json",
    "seq2seq": "passive.tsv",
    "sentence-embedding": "similarity.tsv",  # scripts/make_similarity_demo.py: STS-B's layout, scores 0-5
    "instruct": "instruct_train.jsonl",  # held-out prompts: instruct_heldout.jsonl (lm_workbench.engine.instruct.course_data)
    "preference": "preference.jsonl",
}
# tasks whose demo set has its own held-out file (lm_workbench.engine.preference.course_data: phrasings never trained on)
DEMO_VALIDATION_FILES = {"preference": "preference_validation.jsonl", "instruct": "instruct_heldout.jsonl"}


def demo_path(task: str) -> Path:
    """The demo file for ``task`` (one of ``DEMO_FILES``)."""
    if task not in DEMO_FILES:
        raise WorkbenchError(f"no demo set for task {task!r}; choose one of {', '.join(DEMO_FILES)}")
    return DATA / DEMO_FILES[task]


def demo_validation_path(task: str) -> Path | None:
    """The held-out file of ``task``'s demo set, or None when it has none (10% of the demo file is held out)."""
    name = DEMO_VALIDATION_FILES.get(task)
    return DATA / name if name else None

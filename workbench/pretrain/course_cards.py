"""Reading a course model's card (``workbench_model.json``): which family and which version built it.

Light (no training code, no torch): the model panel, the course-models dialog and a resuming build read it. A
course model folder is ``<root>/<family>`` with the model in ``model/`` and the card beside the weights
(``model/workbench_model.json``); either folder may be given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CARD_FILE = "workbench_model.json"
COURSE_MODEL_VERSION = 5
"""The course models' format and claims version, written as the card's ``version``: raise it whenever
``COURSE_SETTINGS``, the corpus or the card change what a course model shows or says (the lecture claims it must
hold). A model whose card has no ``version`` (an earlier build, which recorded none: version 1) or an older one
is offered a rebuild (``rebuild_offer``)."""
UNVERSIONED = 1  # a card written before the card carried a version


def _model_dir(folder: str | Path) -> Path:
    path = Path(folder)
    return path / "model" if (path / "model").is_dir() else path


def read_card(folder: str | Path) -> dict[str, Any] | None:
    """The card of the course model in ``folder`` (its ``<family>`` folder or its ``model/``), or None when
    there is none or it is not a JSON object (a damaged card reads as none)."""
    path = _model_dir(folder) / CARD_FILE
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return card if isinstance(card, dict) and card.get("tiny_for_demonstrations") else None


def card_version(card: dict[str, Any]) -> int:
    """The card's ``version``; ``UNVERSIONED`` (1) when it has none or not a whole number."""
    version = card.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else UNVERSIONED


def current_version() -> int:
    return COURSE_MODEL_VERSION


def is_current(folder: str | Path) -> bool:
    """Whether ``folder`` holds a course model (``model/config.json`` and a card) built at this version."""
    card = read_card(folder)
    return (card is not None and (_model_dir(folder) / "config.json").is_file()
            and card_version(card) >= current_version())


def rebuild_offer(folder: str | Path) -> str | None:
    """One line offering a rebuild when ``folder`` holds a course model older than this version of the
    workbench expects (its card has no version, or an older one); None for a current one or any other model."""
    card = read_card(folder)
    if card is None:
        return None
    version, now = card_version(card), current_version()
    if version >= now:
        return None
    from lm_workbench.pretrain.course_build import family_name

    family = family_name(str(card.get("family") or Path(folder).name))
    made = "no version recorded" if "version" not in card else f"version {version}"
    return f"A course {family} model of an earlier version ({made}; the lectures expect {now}): rebuild it."

"""A prompt's label score, attributed to the filled template's tokens.

Prompt scoring (``lm_workbench.engine.prompting.scoring``) reads a label's answer words at the answer slot of the filled
template: a cloze template's mask, a prefix template's next token, an encoder-decoder's first output token.
The target here is the first token of the label's best-scoring answer there (a multi-token answer's later
tokens are conditioned on the earlier ones, so its first token is the label's decision point), with the
ids exactly as scoring read them.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import Target, site_from_ids
from lm_workbench.engine.models.loading import LoadedModel


def _best_answer(scored: Any, label: str) -> Any:
    answers = [a for a in scored.answers if a.label == label]
    if not answers:
        raise WorkbenchError(f"the label is one of {', '.join(scored.labels)}, not {label!r}")
    return max(answers, key=lambda a: a.score)


def prompt_label_target(loaded: LoadedModel, scored: Any, label: str | None = None,
                        contrast: str | None = None, second_choice: bool = False) -> Target:
    """The first answer token of ``label`` (default: the predicted label) in a ``ScoredPrompt``; with
    ``contrast`` (another label) minus the first answer token of that label's best answer; ``second_choice``:
    the best-scoring other label is the contrast."""
    label = scored.predicted if label is None else label
    if second_choice:
        others = [(score, name) for name, score in zip(scored.labels, scored.label_scores) if name != label]
        contrast = max(others)[1] if others else None
    best = _best_answer(scored, label)
    position = scored.answer_positions[0] if scored.answer_positions else None
    site = site_from_ids(loaded, scored.token_ids, position, "prompt attribution")
    target = Target(site, int(best.token_ids[0]), best.tokens[0])
    if contrast is None or not contrast.strip():
        return target
    foil = _best_answer(scored, contrast.strip())
    return target.with_contrast(int(foil.token_ids[0]), foil.tokens[0])

"""Contextual calibration (Zhao et al. 2021, "Calibrate before use").

A prompt is biased towards some labels whatever the input. The bias is measured with content-free inputs
("N/A", the empty string, the model's mask token) placed in the same prompt, after the same demonstrations
in the same order: ``p_cf`` is the mean of their label probabilities. A prediction ``p`` is then corrected
to ``q = normalise(diag(p_cf)^-1 p)``, i.e. each label's probability divided by its content-free
probability, renormalised to sum to one. ``p_cf`` depends on the whole prompt, so it is recomputed whenever
the template, verbalizer or demonstrations change.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.fewshot import Demonstration
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer

CONTENT_FREE = ("N/A", "", "[MASK]")  # "[MASK]" stands for the model's own mask token


def content_free_inputs(tokenizer: Any) -> list[str]:
    """The content-free inputs for a model: "N/A", "" and its mask token (left out when it has none)."""
    mask = getattr(tokenizer, "mask_token", None)
    return [mask if text == "[MASK]" else text for text in CONTENT_FREE if text != "[MASK]" or mask]


def calibrate(p: Any, p_cf: Any) -> np.ndarray:
    """``normalise(diag(p_cf)^-1 p)`` for one probability vector [L] or a matrix of them [n, L]."""
    p = np.asarray(p, dtype=np.float64)
    p_cf = np.asarray(p_cf, dtype=np.float64)
    if p.shape[-1] != p_cf.shape[-1]:
        raise WorkbenchError(f"{p.shape[-1]} label probabilities but {p_cf.shape[-1]} content-free ones")
    if np.any(p_cf <= 0):
        raise WorkbenchError("a content-free label probability is 0: this prompt cannot be calibrated")
    q = p / p_cf
    return q / q.sum(axis=-1, keepdims=True)


def content_free_probs(loaded: Any, template: Template, verbalizer: Verbalizer,
                       demonstrations: Sequence[Demonstration] = (), **scoring: Any) -> np.ndarray:
    """``p_cf``: the mean label probabilities of the content-free inputs in this prompt (``[L]``).

    ``scoring`` passes on to ``score_example`` (multi_token, length_normalise, separator) so the content-free
    inputs are scored exactly as the real ones are. For a pair template both texts are content-free.
    """
    from lm_workbench.engine.prompting.scoring import PromptInput, score_batch  # torch only when a model scores

    inputs = [PromptInput(text, text if template.is_pair else None, tuple(demonstrations))
              for text in content_free_inputs(loaded.tokenizer)]
    rows = [s.label_probs for s in score_batch(loaded, template, verbalizer, inputs, top_k=1, **scoring)]
    return np.mean(np.asarray(rows, dtype=np.float64), axis=0)

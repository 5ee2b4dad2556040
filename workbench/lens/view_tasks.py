"""The Logit lens tab's jobs (each ``fn(..., cancel)``; torch is imported on the worker thread).

``read_lenses`` reads both lenses for model A (the tuned one with a translators folder); ``logit_lens_of_b``
reads model B's logit lens, or says in one line why it cannot.
"""

from __future__ import annotations

from typing import Any

TOP_K = 5
MAX_POSITIONS = 256  # positions read through the head: layers x positions x vocabulary multiply-adds each


def read_lenses(loaded: Any, text: str, target: str | None, tuned: str | None, cancel: Any, tokens: Any = None) -> Any:
    """Both lenses (``lm_workbench.engine.lens.tuned.lens.BothLenses``); the tuned one only with a translators folder;
    ``tokens``: the window's encoding of ``text``, reused."""
    from lm_workbench.engine.lens.tuned.lens import read_both  # imports torch: on the worker thread
    from lm_workbench.engine.lens.tuned.translators import load_translators

    cancel.check()
    translators = None if tuned is None else load_translators(tuned, count=loaded.info.layers,
                                                              hidden=loaded.info.hidden_size)
    return read_both(loaded, text, translators, target=target, k=TOP_K, positions=MAX_POSITIONS, tokenized=tokens)


def logit_lens_of_b(loaded: Any, text: str, cancel: Any) -> Any:
    """Model B's logit-lens table (its own greedy output for an encoder-decoder), or a one-line reason."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.lens.logit import logit_lens  # imports torch: on the worker thread

    if loaded.info.family == "biLM":
        return "Model B is ELMo (a pair of LSTM language models): the logit lens has no output head to read."
    cancel.check()
    try:
        return logit_lens(loaded, text, k=TOP_K, positions=MAX_POSITIONS)
    except WorkbenchError as exc:
        return f"Model B: {exc}"

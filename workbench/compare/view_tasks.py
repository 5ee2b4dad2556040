"""Model B's jobs (each ``fn(..., cancel)``, run on the interactive lane; torch is imported there).

B loads through the one loader, as A does (``lm_workbench.models.loader.load_model_job``); ``layer_cka`` is the
Compare tab's matrix; ``tokenize_b``, ``encode_b`` and ``predict_b`` are B's side of the Tokens, Attention and
Predictions tabs, run after A's in A's job (``ui``'s ``paired``).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.wording import with_article

KIND_NEEDS = {
    "encoder": ("fill-mask", "encoder"),
    "decoder": ("next-token prediction", "decoder"),
    "encoder-decoder": ("infilling", "encoder-decoder"),
}


def layer_cka(a: Any, b: Any, texts: list[str], cancel: Any) -> Any:
    """The layer × layer linear CKA of A and B on ``texts`` (``lm_workbench.engine.compare.cka.LayerCka``)."""
    from lm_workbench.engine.compare.cka import layer_cka_job  # imports torch: on the worker thread

    return layer_cka_job(a, b, texts, cancel)


def tokenize_b(loaded: Any, text: str, pair: str | None, cancel: Any) -> Any:
    """The text's tokens under B's tokenizer, as the window tokenizes for A."""
    from lm_workbench.models.view_tasks import tokenize_job  # on the worker thread

    return tokenize_job(loaded, text, pair, cancel)


def encode_b(loaded: Any, text: str, pair: str | None, max_tokens: int, cancel: Any) -> Any:
    """B's encoding with attentions (its encoder's for an encoder-decoder), or None for a model with none."""
    from lm_workbench.engine.analysis import encode  # imports torch: on the worker thread

    if loaded.info.family == "biLM":
        return None
    return encode(loaded, text, pair=pair, attentions=True, max_tokens=max_tokens, cancel=cancel)


def predict_b(loaded: Any, kind: str, text: str, k: int, max_tokens: int, cancel: Any) -> tuple[str, Any]:
    """B's prediction of A's ``kind`` (A's family) for ``text``: ("fill" | "next" | "infill", result), or
    ("why", a one-line reason) where B cannot make it."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.predictions import fill_mask, infill, next_token  # imports torch: on the worker thread

    what, needs = KIND_NEEDS[kind]
    family = loaded.info.family
    if family != needs:
        return "why", f"Model B cannot do {what}: that needs {with_article(needs)} model, " \
                      f"and B is {'ELMo (a biLM)' if family == 'biLM' else with_article(family)}."
    try:
        if kind == "encoder":
            tt, preds = fill_mask(loaded, text, k)
            return "fill", (tt.tokens, preds)
        if kind == "decoder":
            return "next", next_token(loaded, text, k)
        result = infill(loaded, text, max_tokens, cancel=cancel)
        return "infill", (result, loaded.tokenizer.convert_ids_to_tokens(result.output_ids))
    except WorkbenchError as exc:
        return "why", f"Model B: {exc}"

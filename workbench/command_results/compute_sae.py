"""``sae eval``, ``sae features``, ``sae show`` and ``sae search`` computed for both front ends: a sparse
autoencoder (SAELens v6 folder, checked against the loaded model's site and width) read on a model. Evaluation as
SAELens reports it (L0, explained variance, MSE, CE loss recovered against zero-ablation, KL, dead and dense
fractions); the features on a text; one feature's top contexts, density and logit effect (W_dec[f] @ W_U); the
features promoting or firing on a token. The CLI's handlers read the corpus before the model loads and print; the
Python API returns the result. Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.checks import positive
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.driving import drive_quietly
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.engine.errors import WorkbenchError

EVAL_KEYS = ("l0", "explained_variance", "mse", "ce_loss_recovered", "kl", "dead_fraction", "dense_fraction")


def _lines(request: Any, lines: Any) -> Any:
    from lm_workbench.engine.sae.activations import read_corpus

    return lines if lines is not None else read_corpus(request.corpus)


def sae_eval(request: Any, loaded: Any, *, lines: Any = None, quiet: bool = True) -> Result:
    """``EVAL_KEYS`` (fractions; MSE and KL in the activations' units and nats; undefined: null, said in
    ``notes``), ``ce_clean``, ``ce_spliced``, ``ce_zero`` (nats per token), ``tokens``, ``site``, ``loss``."""
    from lm_workbench.engine.sae.evaluate import evaluate_sae
    from lm_workbench.sae.reading import load_checked_sae

    lines = _lines(request, lines)
    file, site, notes = load_checked_sae(loaded, request.sae_dir)
    result = drive_quietly(evaluate_sae(loaded, site, file.sae, lines,
                                        max_tokens=positive(request.max_tokens, "--max-tokens")), quiet=quiet)
    data = {key: getattr(result, key) for key in EVAL_KEYS}
    data |= {"ce_clean": result.ce_clean, "ce_spliced": result.ce_spliced, "ce_zero": result.ce_zero,
             "tokens": result.tokens, "site": file.hook_name, "loss": result.loss or None,
             "notes": notes + result.notes}
    return result_for("sae eval", as_json(data), engine_result=result)


def sae_features(request: Any, loaded: Any) -> Result:
    """The ``top`` features active on the text: ``tokens``, ``features`` (indices), ``values`` [tokens, features]
    (activations), ``site``, ``notes``."""
    from lm_workbench.engine.sae.features import features_on_text
    from lm_workbench.sae.reading import load_checked_sae

    top = positive(request.top, "--top")
    file, site, notes = load_checked_sae(loaded, request.sae_dir)
    strip = features_on_text(loaded, site, file.sae, request.text).strip(top)
    return result_for("sae features", as_json({**strip, "site": file.hook_name, "notes": notes}))


def sae_show(request: Any, loaded: Any, *, lines: Any = None, quiet: bool = True) -> Result:
    """One feature: its density, max activation, top contexts (tokens with the peak), ``logit_effect`` (promoted
    and suppressed tokens), ``tokens_read``, ``notes``. ``engine_result``: (stats, corpus read)."""
    from lm_workbench.engine.sae.features import feature_stats, logit_effect, top_contexts
    from lm_workbench.sae.reading import load_checked_sae

    lines = _lines(request, lines)
    file, site, notes = load_checked_sae(loaded, request.sae_dir)
    if not 0 <= request.feature < file.sae.d_sae:
        raise WorkbenchError(f"--feature {request.feature} is out of range: the SAE has 0..{file.sae.d_sae - 1}")
    corpus = drive_quietly(top_contexts(loaded, site, file.sae, lines, n=positive(request.contexts, "--contexts"),
                                        max_tokens=positive(request.max_tokens, "--max-tokens")), quiet=quiet)
    stats = feature_stats(loaded, site, file.sae, corpus, request.feature)
    effect, more = logit_effect(loaded, file.sae, request.feature)
    data = {**stats.to_dict(), "logit_effect": effect, "tokens_read": corpus.tokens, "notes": notes + more}
    return result_for("sae show", as_json(data), engine_result=(stats, corpus))


def check_sae_search(request: Any) -> None:
    """A token is named, ``top`` at least 1 (before the model loads)."""
    if not request.token:
        raise WorkbenchError("--token is empty: name a token")
    positive(request.top, "--top")


def sae_search(request: Any, loaded: Any, *, lines: Any = None, quiet: bool = True) -> Result:
    """The features that promote the token most (``promoting``: feature, effect = W_dec[f] @ W_U[token]) and, with a
    corpus, those whose strongest context peaks on it (``firing``); a token of several pieces is searched by its
    first (said in ``notes``)."""
    from lm_workbench.engine.sae.features import firing_on, promoting, top_contexts
    from lm_workbench.sae.reading import load_checked_sae

    check_sae_search(request)
    top = request.top
    if lines is None and request.corpus:
        lines = _lines(request, None)
    file, site, notes = load_checked_sae(loaded, request.sae_dir)
    ids = loaded.tokenizer(request.token, add_special_tokens=False)["input_ids"]
    if not ids:
        raise WorkbenchError(f"--token {request.token!r} is no token for this model")
    pieces = loaded.tokenizer.convert_ids_to_tokens(ids)
    if len(ids) > 1:
        notes = notes + [f"{request.token!r} is {len(ids)} tokens for this model ({' '.join(pieces)}): searched by "
                         f"its first, {pieces[0]!r}"]
    found = promoting(loaded, file.sae, request.token, k=top)
    if not found:
        notes = notes + ["the model's unembedding does not read the SAE's site's width: no logit effect"]
    firing = None
    if lines is not None:
        corpus = drive_quietly(top_contexts(loaded, site, file.sae, lines, n=1,
                                            max_tokens=positive(request.max_tokens, "--max-tokens")), quiet=quiet)
        firing = firing_on(loaded, corpus, request.token, k=top)
    data = {"token": request.token, "token_id": int(ids[0]), "site": file.hook_name,
            "promoting": [{"feature": f, "effect": e} for f, e in found], "firing": firing, "notes": notes}
    return result_for("sae search", as_json(data), engine_result=pieces)

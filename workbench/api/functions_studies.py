"""``lm_workbench``'s studies commands (those that read no model or more than one).

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests
from lm_workbench.api.runner import call as _call


def study(
        study: str,
        *,
        scale: str = "lecture",
        out: str | None = None,
        set: tuple[str, ...] = (),
        yes: bool = False,
        estimate: bool = False,
) -> Any:
    """``lm-workbench study run``: run a study's cells (resumes; reuses identical runs)."""
    return _call(_requests.StudyRunRequest, locals())


def study_list() -> Any:
    """``lm-workbench study list``: the built-in studies."""
    return _call(_requests.StudyListRequest, locals())


def study_table(
        study: str,
        *,
        scale: str = "lecture",
        out: str | None = None,
        set: tuple[str, ...] = (),
        export: str | None = None,
) -> Any:
    """``lm-workbench study table``: a study's table from the runs made so far."""
    return _call(_requests.StudyTableRequest, locals())


def guide_list(
        *,
        guide: str | None = None,
) -> Any:
    """``lm-workbench guide list``: the guide's pages in order."""
    return _call(_requests.GuideListRequest, locals())


def guide_show(
        page: str,
        *,
        guide: str | None = None,
) -> Any:
    """``lm-workbench guide show``: one page: its text, view settings and exercise."""
    return _call(_requests.GuideShowRequest, locals())


def guide_check(
        page: str,
        *,
        answer: str,
        model: str | None = None,
        guide: str | None = None,
) -> Any:
    """``lm-workbench guide check``: check an answer to a page's exercise against a model."""
    return _call(_requests.GuideCheckRequest, locals())


def guide_progress(
        *,
        csv: str | None = None,
        reset: bool = False,
        guide: str | None = None,
) -> Any:
    """``lm-workbench guide progress``: this OS user's progress; --csv exports it, --reset forgets it."""
    return _call(_requests.GuideProgressRequest, locals())


def sae_eval(
        sae_dir: str,
        *,
        model: str,
        device: str | None = None,
        precision: str | None = None,
        offline: bool | None = None,
        corpus: str,
        max_tokens: int = 4096,
) -> Any:
    """``lm-workbench sae eval``: L0, explained variance, MSE, CE loss recovered, KL, dead and dense fractions."""
    return _call(_requests.SaeEvalRequest, locals())


def sae_features(
        sae_dir: str,
        *,
        model: str,
        device: str | None = None,
        precision: str | None = None,
        offline: bool | None = None,
        text: str,
        top: int = 10,
) -> Any:
    """``lm-workbench sae features``: the features active on a text, strongest first."""
    return _call(_requests.SaeFeaturesRequest, locals())


def sae_show(
        sae_dir: str,
        *,
        model: str,
        device: str | None = None,
        precision: str | None = None,
        offline: bool | None = None,
        feature: int,
        corpus: str,
        contexts: int = 10,
        max_tokens: int = 20000,
) -> Any:
    """``lm-workbench sae show``: one feature's top contexts, histogram, density and logit effect."""
    return _call(_requests.SaeShowRequest, locals())


def sae_search(
        sae_dir: str,
        *,
        model: str,
        device: str | None = None,
        precision: str | None = None,
        offline: bool | None = None,
        token: str,
        corpus: str | None = None,
        top: int = 10,
        max_tokens: int = 20000,
) -> Any:
    """``lm-workbench sae search``: features by a token: those promoting it most, and those firing on it."""
    return _call(_requests.SaeSearchRequest, locals())


__all__ = [
    "study",
    "study_list",
    "study_table",
    "guide_list",
    "guide_show",
    "guide_check",
    "guide_progress",
    "sae_eval",
    "sae_features",
    "sae_show",
    "sae_search",
]

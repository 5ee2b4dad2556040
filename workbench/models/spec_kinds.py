"""Kinds of model spec that areas of the workbench add to what the engine resolves (a folder, the Hugging Face
cache, a hub id): ``course:<family>`` (pre-training's course models) and a sentence encoder trained with
adapters, prefix or prompt tuning (fine-tuning's sentence output). Each registers through the entry-point group
``lm_workbench.model_specs`` (each entry names a ``ModelSpecKind``), as run kinds do, so the one model-loading
loader (``lm_workbench.models.loader``) imports no area and no area loop forms through it. Light: no
torch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, Generator

GROUP = "lm_workbench.model_specs"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelSpecKind:
    """A kind of model spec.

    ``rewrite(spec)`` returns another spec for one of this kind (``course:bert`` -> that model's folder) and the
    spec unchanged otherwise; ``claims(spec)`` says whether ``load(spec, settings, cancel)`` (a generator of
    ``Progress`` returning a ``LoadedModel``) loads it instead of the engine's loader. Either part may be None.
    """

    name: str
    rewrite: Callable[[str], str] | None = None
    claims: Callable[[str], bool] | None = None
    load: Callable[[str, Any, Any], Generator[Any, None, Any]] | None = None


def discover_spec_kinds(entries: Any = None) -> list[ModelSpecKind]:
    """The registered kinds, sorted by name (or those of ``entries``, for tests); a broken entry is logged and
    left out."""
    if entries is None:
        from importlib.metadata import entry_points

        entries = entry_points(group=GROUP)
    kinds = []
    for entry in entries:
        try:
            kind = entry.load()
        except Exception:  # noqa: BLE001 - one broken registration must not stop every model from loading
            log.exception("model spec kind %s could not be loaded", entry.name)
            continue
        if not isinstance(kind, ModelSpecKind) or kind.name != entry.name:
            log.error("model spec entry %s is not a ModelSpecKind named %s", entry.name, entry.name)
            continue
        kinds.append(kind)
    return sorted(kinds, key=lambda k: k.name)


_KINDS: list[ModelSpecKind] | None = None


def spec_kinds() -> list[ModelSpecKind]:
    """Every registered kind (discovered once per process)."""
    global _KINDS
    if _KINDS is None:
        _KINDS = discover_spec_kinds()
    return _KINDS


def rewrite_spec(spec: str) -> str:
    """``spec`` after every kind's rewrite (``course:<family>`` -> its folder); a ``WorkbenchError`` from a kind
    (a course model not built here) passes through."""
    for kind in spec_kinds():
        if kind.rewrite is not None:
            spec = kind.rewrite(spec)
    return spec


def load_spec_tokenizer(spec: str, *, trust_remote_code: bool = False) -> Any:
    """The fast tokenizer of ``spec`` after every kind's rewrite (``course:t5`` -> its folder, or
    ``CourseModelComing`` while the window's build makes it): what a view or command that takes another model's
    tokenizer loads. ``WorkbenchError`` with one line when it cannot be loaded."""
    from lm_workbench.engine.models.tokenizer import load_tokenizer

    return load_tokenizer(rewrite_spec(spec), trust_remote_code=trust_remote_code)


def claiming_kind(spec: str) -> ModelSpecKind | None:
    """The kind that loads ``spec`` itself, or None when the engine's loader does."""
    for kind in spec_kinds():
        if kind.claims is not None and kind.load is not None and kind.claims(spec):
            return kind
    return None

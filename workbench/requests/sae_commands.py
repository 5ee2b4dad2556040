"""Requests of ``sae train|eval|features|show|search`` and ``steer`` (issue 47); rules: ``lm_workbench.requests.base``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lm_workbench.requests.base import ModelRequest, Request


@dataclass(frozen=True, kw_only=True)
class SaeTrainRequest(ModelRequest):
    """``lm-workbench sae train``: train an SAE on a site's activations over a corpus (a recorded run)"""

    COMMAND: ClassVar[str] = "sae train"
    corpus: str  # --corpus
    out: str  # --out
    site: str | None = None  # --site
    kind: str = "topk"  # --kind
    expansion: int = 8  # --expansion
    sparsity: float | None = None  # --sparsity
    steps: int = 200  # --steps
    batch: int = 256  # --batch
    lr: float = 1e-3  # --lr
    buffer_tokens: int = 4096  # --buffer-tokens
    context: int = 64  # --context
    seed: int = 0  # --seed
    checkpoint_every: int = 100  # --checkpoint-every
    resume: bool = False  # --resume
    name: str | None = None  # --name


@dataclass(frozen=True, kw_only=True)
class _SaeReadRequest(Request):
    sae_dir: str  # positional
    model: str  # --model
    device: str | None = None  # --device
    precision: str | None = None  # --precision
    offline: bool | None = None  # --offline


@dataclass(frozen=True, kw_only=True)
class SaeEvalRequest(_SaeReadRequest):
    """``lm-workbench sae eval``: L0, explained variance, MSE, CE loss recovered, KL, dead and dense fractions"""

    COMMAND: ClassVar[str] = "sae eval"
    corpus: str  # --corpus
    max_tokens: int = 4096  # --max-tokens


@dataclass(frozen=True, kw_only=True)
class SaeFeaturesRequest(_SaeReadRequest):
    """``lm-workbench sae features``: the features active on a text, strongest first"""

    COMMAND: ClassVar[str] = "sae features"
    text: str  # --text
    top: int = 10  # --top


@dataclass(frozen=True, kw_only=True)
class SaeShowRequest(_SaeReadRequest):
    """``lm-workbench sae show``: one feature's top contexts, histogram, density and logit effect"""

    COMMAND: ClassVar[str] = "sae show"
    feature: int  # --feature
    corpus: str  # --corpus
    contexts: int = 10  # --contexts
    max_tokens: int = 20000  # --max-tokens


@dataclass(frozen=True, kw_only=True)
class SaeSearchRequest(_SaeReadRequest):
    """``lm-workbench sae search``: features by a token: those promoting it most, and those firing on it"""

    COMMAND: ClassVar[str] = "sae search"
    token: str  # --token
    corpus: str | None = None  # --corpus
    top: int = 10  # --top
    max_tokens: int = 20000  # --max-tokens


@dataclass(frozen=True, kw_only=True)
class SteerRequest(ModelRequest):
    """``lm-workbench steer``: steered beside unsteered predictions (and generations)"""

    COMMAND: ClassVar[str] = "steer"
    text: str  # --text
    site: str  # --site
    strength: float  # --strength
    vector: str | None = None  # --vector
    feature: str | None = None  # --feature
    pairs: str | None = None  # --pairs
    generate: int = 0  # --generate
    top: int = 5  # --top
    save_vector: str | None = None  # --save-vector
    grid: bool = False  # --grid
    grid_layers: tuple[int, ...] | None = None  # --grid-layers
    grid_strengths: tuple[float, ...] | None = None  # --grid-strengths
    concept: str | None = None  # --concept

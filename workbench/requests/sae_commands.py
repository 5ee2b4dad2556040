"""Requests of ``sae train|eval|features|show|search`` and ``steer`` (issue 47); rules: ``lm_workbench.requests.base``."""

from __future__ import annotations

from lm_workbench.requests.base import ModelRequest, Request


class SaeTrainRequest(ModelRequest, command="sae train"):
    """``lm-workbench sae train``: train an SAE on a site's activations over a corpus (a recorded run)"""

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


class _SaeReadRequest(Request):
    sae_dir: str  # positional
    model: str  # --model
    device: str | None = None  # --device
    precision: str | None = None  # --precision
    offline: bool | None = None  # --offline


class SaeEvalRequest(_SaeReadRequest, command="sae eval"):
    """``lm-workbench sae eval``: L0, explained variance, MSE, CE loss recovered, KL, dead and dense fractions"""

    corpus: str  # --corpus
    max_tokens: int = 4096  # --max-tokens


class SaeFeaturesRequest(_SaeReadRequest, command="sae features"):
    """``lm-workbench sae features``: the features active on a text, strongest first"""

    text: str  # --text
    top: int = 10  # --top


class SaeShowRequest(_SaeReadRequest, command="sae show"):
    """``lm-workbench sae show``: one feature's top contexts, histogram, density and logit effect"""

    feature: int  # --feature
    corpus: str  # --corpus
    contexts: int = 10  # --contexts
    max_tokens: int = 20000  # --max-tokens


class SaeSearchRequest(_SaeReadRequest, command="sae search"):
    """``lm-workbench sae search``: features by a token: those promoting it most, and those firing on it"""

    token: str  # --token
    corpus: str | None = None  # --corpus
    top: int = 10  # --top
    max_tokens: int = 20000  # --max-tokens


class SteerRequest(ModelRequest, command="steer"):
    """``lm-workbench steer``: steered beside unsteered predictions (and generations)"""

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

"""ROME's corruption (Meng et al. 2022, section 2.1): Gaussian noise on the subject's token embeddings.

Instead of a second text, the corrupted run is the clean text with noise added to the word embeddings of the
subject's tokens (the words a user names, found in the clean text): ε ~ N(0, ν²) per coordinate, with
ν = ``scale`` × σ. The paper takes σ from the embeddings of many subjects; here σ is the standard deviation of
the entries of the model's input embedding matrix (every vocabulary row, or an evenly spaced sample of
``SIGMA_ROWS`` rows for a large vocabulary), which a user can check against the model alone. The corrupted
metric is the mean over ``samples`` noise draws from a seeded generator, as the paper averages its runs;
each restored run is averaged over the same draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import PredictionSite, input_embedding_module
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.names import DEFAULT_NOISE_SAMPLES as DEFAULT_SAMPLES
from lm_workbench.engine.patching.names import DEFAULT_NOISE_SCALE as DEFAULT_SCALE

__all__ = ["DEFAULT_SAMPLES", "DEFAULT_SCALE", "Noise", "embedding_sigma", "noised", "subject_positions"]
SIGMA_ROWS = 20_000


@dataclass(frozen=True)
class Noise:
    """How a noised corrupted run was made (reported in the result's ``noise``)."""

    subject: str
    positions: list[int]  # the subject's tokens in the clean text
    sigma: float  # the std of the input embedding matrix's entries
    scale: float  # ν = scale × σ
    samples: int
    seed: int

    def to_dict(self) -> dict:
        return {"subject": self.subject, "positions": self.positions, "sigma": self.sigma, "scale": self.scale,
                "samples": self.samples, "seed": self.seed}


def embedding_sigma(loaded: LoadedModel) -> float:
    """The standard deviation of the input embedding matrix's entries (a sample of rows when it is large)."""
    weight = input_embedding_module(loaded).weight.detach()
    if weight.shape[0] > SIGMA_ROWS:
        rows = torch.linspace(0, weight.shape[0] - 1, SIGMA_ROWS, device=weight.device).long()
        weight = weight[rows]
    return float(weight.double().std())


def subject_positions(site: PredictionSite, subject: str) -> list[int]:
    """The (non-special) tokens of the site's text whose characters overlap the first occurrence of ``subject``
    (exact case first, else ignoring case)."""
    text = site.tokenized.text
    words = subject.strip()
    if not words:
        raise WorkbenchError("the subject to noise is empty: name the words of the clean text to corrupt")
    start = text.find(words)
    if start < 0:
        start = text.lower().find(words.lower())
    if start < 0:
        raise WorkbenchError(f"the subject {words!r} is not in the clean text {text!r}")
    end = start + len(words)
    tok = site.tokenized
    positions = [i for i, ((a, b), special) in enumerate(zip(tok.offsets, tok.special))
                 if not special and b > a and a < end and b > start]
    if not positions and tok.window_note:
        raise WorkbenchError(f"the subject {words!r} lies outside the window the model reads of the clean text "
                             f"({tok.window_note}): shorten the text or move the subject closer to the answer")
    if not positions:
        raise WorkbenchError(f"the subject {words!r} covers no token of the clean text")
    return positions


def noised(clean: torch.Tensor, positions: list[int], nu: float, samples: int, seed: int) -> torch.Tensor:
    """[samples, T, H]: ``clean`` [1, T, H] with N(0, nu²) noise added at ``positions``, one draw per row."""
    if samples < 1:
        raise WorkbenchError(f"the number of noise samples is at least 1, not {samples}")
    generator = torch.Generator().manual_seed(int(seed))
    noise = torch.randn(samples, len(positions), clean.shape[-1], generator=generator, dtype=torch.float32) * nu
    out = clean.repeat(samples, 1, 1)
    out[:, positions] += noise.to(device=out.device, dtype=out.dtype)
    return out

"""Causal tracing by activation patching (Meng, Bau, Andonian and Belinkov 2022, "Locating and Editing Factual
Associations in GPT").

A clean text and a corrupted one of the same token length run through the model. For every layer l and
position t, the corrupted run is repeated with one site (``sites``: the block's output, its attention's
output or its MLP's output) at layer l and position t restored from the clean run. The metric is read at
the predicted position (decoders: the last token; masked LMs: the mask):

    metric = logit(answer) − logit(wrong), or logit(answer) when no wrong token is given,

and ``effect[l][t] = (patched − corrupt) / (clean − corrupt)``: 1 where restoring that one activation gives
back all of the clean metric, 0 where it gives back none. Each layer's positions run as one batch (a row per
position), so the work is ``layers`` forward passes of ``tokens`` rows, with progress after each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generator

import torch

from engine.attribution.targets import (
    PredictionSite, position_logits, prediction_site, rows_per_pass, token_name, vocabulary_token, word_embeddings,
)
from engine.errors import WorkbenchError
from engine.families import Family
from engine.loading import LoadedModel
from engine.patching.names import DEFAULT_SITE
from engine.patching.sites import recording, replacing, site_modules
from engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion

WHAT = "activation patching"


@dataclass(frozen=True)
class Patching:
    """The recovered fraction of the metric for every layer (rows) and position (columns)."""

    site: str
    layers: list[int]  # 0..L-1: effect row l patches the output of block l
    tokens: list[str]  # the clean text's tokens
    corrupt_tokens: list[str]
    position: int  # where the metric is read
    answer: str
    answer_id: int
    wrong: str | None
    wrong_id: int | None
    clean_metric: float
    corrupt_metric: float
    clean_prediction: str  # the top token at ``position`` in the clean run
    corrupt_prediction: str
    effect: list[list[float]]  # [layers][tokens]

    def to_dict(self) -> dict:
        return {"site": self.site, "layers": self.layers, "tokens": self.tokens, "clean_metric": self.clean_metric,
                "corrupt_metric": self.corrupt_metric, "effect": self.effect}


def _same_shape(clean: PredictionSite, corrupt: PredictionSite) -> None:
    a, b = len(clean.tokenized.ids), len(corrupt.tokenized.ids)
    if a != b:
        raise WorkbenchError(f"the clean and corrupted texts must have the same number of tokens: the clean text "
                             f"has {a}, the corrupted text has {b}")
    if clean.position != corrupt.position:
        raise WorkbenchError(f"the mask must be at the same position in both texts: it is at token {clean.position} "
                             f"of the clean text and token {corrupt.position} of the corrupted one")


def _metric(logits: torch.Tensor, answer_id: int, wrong_id: int | None) -> torch.Tensor:
    """[B] metric from [B, vocab] logits, in float64."""
    logits = logits.double()
    return logits[:, answer_id] - logits[:, wrong_id] if wrong_id is not None else logits[:, answer_id]


def patching_steps(loaded: LoadedModel, clean: str, corrupt: str, answer: str, wrong: str | None = None,
                   site: str = DEFAULT_SITE, cancel: CancelToken = NEVER_CANCELLED
                   ) -> Generator[Progress, None, Patching]:
    """Patch ``site`` at every layer and position from ``clean`` into ``corrupt``; a job that yields Progress per
    layer and returns a ``Patching``. ``answer`` and ``wrong`` each name one vocabulary token."""
    if loaded.family not in (Family.DECODER, Family.ENCODER):
        raise WorkbenchError(f"{WHAT} covers decoders and masked LMs; {loaded.info.spec} is a "
                             f"{loaded.family.value} model, which it does not cover yet")
    modules = site_modules(loaded, site)
    clean_site = prediction_site(loaded, clean, WHAT)
    corrupt_site = prediction_site(loaded, corrupt, WHAT)
    _same_shape(clean_site, corrupt_site)
    answer_id = vocabulary_token(loaded, answer, "--answer")
    wrong_id = vocabulary_token(loaded, wrong, "--wrong") if wrong is not None else None
    corrupt_embeddings = word_embeddings(loaded, corrupt_site)
    both = torch.cat([word_embeddings(loaded, clean_site), corrupt_embeddings])
    with torch.inference_mode():
        with recording(modules) as kept:
            both_logits = position_logits(loaded, clean_site, both)  # one pass of two rows: clean, corrupt
        clean_outputs = [k[0] for k in kept]  # [layers] of [T, H]
    metrics = _metric(both_logits, answer_id, wrong_id)
    clean_metric, corrupt_metric = float(metrics[0]), float(metrics[1])
    if clean_metric == corrupt_metric:
        raise WorkbenchError(f"the clean and corrupted texts give the same metric ({clean_metric:.4f}): there is "
                             "nothing to recover; corrupt the text where it matters to the answer")
    tokens = len(clean_site.tokenized.ids)
    chunk = max(2, rows_per_pass(loaded, corrupt_site, most=64))
    effect = torch.zeros(len(modules), tokens, dtype=torch.float64)
    for layer, module in enumerate(modules):
        for start in range(0, tokens, chunk):
            cancel.check()
            positions = torch.arange(start, min(start + chunk, tokens))
            # at least two rows, as in the reference pass, so a row's head matmul rounds as the references' did
            padded = positions if len(positions) > 1 else positions.repeat(2)
            rows = torch.arange(len(padded))
            restored = clean_outputs[layer][padded]  # [B, H]: row b restores position padded[b]

            def restore(output: torch.Tensor) -> torch.Tensor:
                output = output.clone()
                output[rows, padded] = restored.to(output.dtype)
                return output

            with torch.inference_mode(), replacing(module, restore):
                logits = position_logits(loaded, corrupt_site, corrupt_embeddings.expand(len(padded), -1, -1))
            patched = _metric(logits, answer_id, wrong_id).cpu()[:len(positions)]
            effect[layer, positions] = (patched - corrupt_metric) / (clean_metric - corrupt_metric)
        yield Progress(layer + 1, len(modules), f"{WHAT}: layer {layer + 1} of {len(modules)}")
    top = [token_name(loaded, int(torch.argmax(row.float()))) for row in both_logits]
    return Patching(site, list(range(len(modules))), clean_site.tokens, corrupt_site.tokens, clean_site.position,
                    token_name(loaded, answer_id), answer_id,
                    token_name(loaded, wrong_id) if wrong_id is not None else None, wrong_id,
                    clean_metric, corrupt_metric, top[0], top[1], (effect + 0.0).tolist())  # + 0.0: no -0.0


def patch(loaded: LoadedModel, clean: str, corrupt: str, answer: str, wrong: str | None = None,
          site: str = DEFAULT_SITE) -> Patching:
    """``patching_steps`` run to its end."""
    return run_to_completion(patching_steps(loaded, clean, corrupt, answer, wrong, site))

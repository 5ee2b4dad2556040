"""Ablations: take heads or MLPs out and see the metric move.

The metric is read at the predicted position (a decoder's next token, a masked LM's mask, an encoder-decoder's
output token): logit(X), or logit(X) − logit(Y) with a contrast. A head is ablated at every position of the
text by replacing its slice of the attention's output-projection input (its output before the projection):

- ``zero``: by 0 (so the projection adds only its bias);
- ``mean``: by its mean over a corpus's tokens;
- ``resample``: at each position by its value at a corpus token drawn at random (seeded).

An MLP is ablated the same way at its output (the output projection's output, bias included). ``ablate`` takes
a set of heads and MLPs out together and returns one metric; ``head_sweep_job`` takes out one head at a time,
every head of every layer, one forward pass per layer (a batch row per head), with progress and a ``Partial``
(the rows so far) after each layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generator, Sequence

import torch

from lm_workbench.engine.anatomy.hooks import replacing_inputs, replacing_outputs
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.anatomy import Anatomy, HeadRow, anatomy
from lm_workbench.engine.heads.corpus import Replacements, corpus_replacements_job
from lm_workbench.engine.heads.names import HOWS, ZERO, head_label
from lm_workbench.engine.logit_target.target import (
    Target, position_logits, prediction_site, resolve_target, target_metric, word_embeddings,
)
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, run_to_completion

WHAT = "ablation"


@dataclass(frozen=True)
class Ablation:
    how: str
    target: str
    target_id: int
    contrast: str | None
    contrast_id: int | None
    position: int
    clean_metric: float
    ablated_metric: float | list[list[float]]  # one set together, or [row][head] for the sweep
    rows: list[str]  # the head rows' names ("0", "1", ...; an encoder-decoder: "0 self", "0 cross", ...)
    heads: int
    ablated: list[str] = field(default_factory=list)  # what was taken out together ("1.0", "mlp 2")
    corpus_tokens: int | None = None
    notes: list[str] = field(default_factory=list)  # "tokens a–b of n" (a text longer than the window), corpus cuts

    def to_dict(self) -> dict:
        data = {"how": self.how, "target": self.target, "contrast": self.contrast, "clean_metric": self.clean_metric,
                "ablated_metric": self.ablated_metric, "target_id": self.target_id, "contrast_id": self.contrast_id,
                "position": self.position, "rows": self.rows, "heads": self.heads}
        if self.ablated:
            data["ablated"] = self.ablated
        if self.corpus_tokens is not None:
            data["corpus_tokens"] = self.corpus_tokens
        if self.notes:
            data["notes"] = list(self.notes)
        return data


@dataclass(frozen=True)
class _Setup:
    parts: Anatomy
    target: Target
    embeddings: torch.Tensor  # [1, T, H]
    replacements: Replacements | None  # mean / resample
    how: str

    @property
    def positions(self) -> int:
        return self.embeddings.shape[1] if self.target.site.kind != "seq2seq" else self.target.site.decoder_ids.shape[1]


def _setup_job(loaded: LoadedModel, text: str, target: str | None, contrast: str | None, how: str,
                 corpus: Sequence[str] | None, output_position: int, seed: int, cancel: CancelToken
                 ) -> Generator[Progress, None, _Setup]:
    if how not in HOWS:
        raise WorkbenchError(f"--how is one of {', '.join(HOWS)}, not {how!r}")
    site = prediction_site(loaded, text, WHAT, output_position)
    parts = anatomy(loaded, WHAT)
    chosen = resolve_target(loaded, site, target, contrast)
    embeddings = word_embeddings(loaded, site)
    setup = _Setup(parts, chosen, embeddings, None, how)
    if how == ZERO:
        return setup
    if corpus is None:
        raise WorkbenchError(f"{how} ablation replaces a head by what it does on a corpus: name one with --corpus F")
    replacements = yield from corpus_replacements_job(loaded, parts, list(corpus), how, setup.positions, seed, cancel)
    return _Setup(parts, chosen, embeddings, replacements, how)


def _metric(loaded: LoadedModel, setup: _Setup, batch: int = 1) -> torch.Tensor:
    with torch.inference_mode():
        logits = position_logits(loaded, setup.target.site, setup.embeddings.expand(batch, -1, -1))
    return target_metric(logits.double(), setup.target).cpu()


def _value(setup: _Setup, kind: str, index: int, like: torch.Tensor, columns: slice) -> torch.Tensor:
    """What replaces ``like[..., columns]`` [B, T, w]: 0, the corpus mean or the resampled tokens."""
    if setup.replacements is None:
        return torch.zeros((), dtype=like.dtype, device=like.device)
    stored = (setup.replacements.rows if kind == "row" else setup.replacements.mlps)[index]
    return stored[..., columns].to(like.dtype).to(like.device)


def _head_change(setup: _Setup, index: int, row: HeadRow, heads_by_batch_row: list[list[int]]
                 ) -> Callable[[torch.Tensor], torch.Tensor]:
    """Input x [B, T, in] of the row's projection with batch row b's heads ``heads_by_batch_row[b]`` replaced."""
    width = row.head_width

    def change(x: torch.Tensor) -> torch.Tensor:
        x = x.clone()
        for b, heads in enumerate(heads_by_batch_row):
            for h in heads:
                columns = slice(h * width, (h + 1) * width)
                x[b, :, columns] = _value(setup, "row", index, x, columns)
        return x

    return change


def _mlp_change(setup: _Setup, index: int) -> Callable[[torch.Tensor], torch.Tensor]:
    def change(output: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(output) + _value(setup, "mlp", index, output, slice(None))

    return change


def _row_index(parts: Anatomy, kind: str, layer: int, head: int) -> int:
    for i, row in enumerate(parts.rows):
        if row.layer == layer and row.kind == kind:
            if not 0 <= head < row.heads:
                raise WorkbenchError(f"head {head_label(kind, layer, head)}: layer {layer} has heads 0 to "
                                     f"{row.heads - 1}")
            return i
    if kind == "cross":
        raise WorkbenchError(f"head {head_label(kind, layer, head)}: this model has no cross-attention there "
                             f"(layers 0 to {parts.layers - 1}; only an encoder-decoder's decoder has one)")
    raise WorkbenchError(f"head {head_label(kind, layer, head)}: the layers are 0 to {parts.layers - 1}")


def _result(setup: _Setup, clean: float, ablated, ablated_names: list[str]) -> Ablation:
    t = setup.target
    return Ablation(setup.how, t.token, t.id, t.contrast, t.contrast_id, t.site.position, clean, ablated,
                    [row.name for row in setup.parts.rows], setup.parts.heads, ablated_names,
                    setup.replacements.tokens if setup.replacements is not None else None,
                    t.site.notes + (setup.replacements.notes if setup.replacements is not None else []))


def ablate_job(loaded: LoadedModel, text: str, target: str | None = None, contrast: str | None = None, *,
                 heads: Sequence[tuple[str, int, int]] = (), mlps: Sequence[int] = (), how: str = ZERO,
                 corpus: Sequence[str] | None = None, output_position: int = 0, seed: int = 0,
                 cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, Ablation]:
    """The metric with ``heads`` ((kind, layer, head): "self" or "cross") and the MLPs of ``mlps`` taken out
    together; a job."""
    if not heads and not mlps:
        raise WorkbenchError("nothing to ablate: name heads (--heads L.H,...) or MLPs (--mlps L,...)")
    setup = yield from _setup_job(loaded, text, target, contrast, how, corpus, output_position, seed, cancel)
    parts = setup.parts
    by_row: dict[int, list[int]] = {}
    for kind, layer, head in heads:
        by_row.setdefault(_row_index(parts, kind, layer, head), []).append(head)
    for layer in mlps:
        if not 0 <= layer < parts.layers:
            raise WorkbenchError(f"MLP {layer}: the layers are 0 to {parts.layers - 1}")
    clean = float(_metric(loaded, setup)[0])
    inputs = {parts.rows[i].projection: _head_change(setup, i, parts.rows[i], [hs]) for i, hs in by_row.items()}
    outputs = {parts.mlps[layer]: _mlp_change(setup, layer) for layer in mlps}
    with replacing_inputs(inputs), replacing_outputs(outputs):
        ablated = float(_metric(loaded, setup)[0])
    names = [head_label(k, layer, h) for k, layer, h in heads] + [f"mlp {layer}" for layer in mlps]
    return _result(setup, clean, ablated, names)


def head_sweep_job(loaded: LoadedModel, text: str, target: str | None = None, contrast: str | None = None, *,
                     how: str = ZERO, corpus: Sequence[str] | None = None, output_position: int = 0, seed: int = 0,
                     cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress | Partial, None, Ablation]:
    """The metric with each head taken out alone, ``ablated_metric[row][head]``; a job yielding Progress and a
    ``Partial`` (the ``Ablation`` of the rows done so far) per row."""
    setup = yield from _setup_job(loaded, text, target, contrast, how, corpus, output_position, seed, cancel)
    parts = setup.parts
    clean = float(_metric(loaded, setup)[0])
    sweep: list[list[float]] = []
    for i, row in enumerate(parts.rows):
        cancel.check()
        change = _head_change(setup, i, row, [[h] for h in range(row.heads)])
        with replacing_inputs({row.projection: change}):
            sweep.append([float(v) for v in _metric(loaded, setup, row.heads)])
        yield Progress(i + 1, len(parts.rows), f"ablating every head: row {i + 1} of {len(parts.rows)}")
        yield Partial(_result(setup, clean, [list(r) for r in sweep], []))
    return _result(setup, clean, sweep, [])


def ablate(loaded: LoadedModel, text: str, target: str | None = None, contrast: str | None = None,
           **kwargs) -> Ablation:
    """``ablate_job`` run to its end."""
    return run_to_completion(ablate_job(loaded, text, target, contrast, **kwargs))


def sweep_heads(loaded: LoadedModel, text: str, target: str | None = None, contrast: str | None = None,
                **kwargs) -> Ablation:
    """``head_sweep_job`` run to its end."""
    return run_to_completion(head_sweep_job(loaded, text, target, contrast, **kwargs))

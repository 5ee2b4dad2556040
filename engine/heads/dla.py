"""Direct logit attribution: the logit (difference) split into what each part of the model writes directly.

In a pre-norm transformer the residual stream at the predicted position, where the final norm reads it, is a
plain sum r = e + Σ_l Σ_h a_{l,h} + Σ_l m_l + b: the embeddings e, every head's output a_{l,h} (its slice of
the attention's output-projection input through that projection, without the projection's bias), every MLP's
output m_l (without its output bias) and b, the output projections' biases. The final norm is linear in r once
its scale is frozen at this run's value σ (LayerNorm: γ ⊙ (r − mean r) / σ + β; RMSNorm: γ ⊙ r / σ), and the
unembedding is linear, so the metric logit(X) − logit(Y) (or logit(X)) splits exactly into

    embed + Σ attn[l][h] + Σ mlp[l] + bias,

``bias`` being what the output biases, the norm's shift β and the unembedding's own bias add. ``total`` is the
model's own metric from its forward pass, and ``approximation_gap = total − (the sum)``: what the split misses
(rounding, for the families it covers). Covered: GPT-2, Llama-style decoders and the T5 decoder (its self- and
cross-attention heads as rows of their own). In post-norm BERT and BART a LayerNorm after every sub-layer
rescales the stream, so the split is not a sum: they get a one-line error that says so (``anatomy.NOT_A_SUM``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from lm_workbench.engine.anatomy.hooks import keeping_inputs, keeping_outputs
from lm_workbench.engine.anatomy.points import logits_bias
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.anatomy import Anatomy, NotASum, anatomy, not_a_sum_note
from lm_workbench.engine.logit_target.target import (
    Target, position_logits, prediction_site, resolve_target, target_metric, word_embeddings,
)
from lm_workbench.engine.models.loading import LoadedModel

WHAT = "direct logit attribution"
FROZEN_NOTE = ("each part is read through the final norm with its scale frozen at this run's value (σ = {sigma:.4g}), "
               "which makes the split exact; approximation_gap is what it misses")


@dataclass(frozen=True)
class DirectLogitAttribution:
    """The metric split into the embeddings, each head ([row][head]), each MLP and the biases."""

    layers: int
    heads: int
    rows: list[str]  # the attention rows' names: "0", "1", ... (an encoder-decoder: "0 self", "0 cross", ...)
    embed: float
    attn: list[list[float]]  # [row][head]
    mlp: list[float]  # [layer]
    bias: float
    total: float  # the model's own logit(X) - logit(Y) (or logit(X))
    approximation_gap: float  # total - (embed + sum(attn) + sum(mlp) + bias)
    target: str
    target_id: int
    contrast: str | None
    contrast_id: int | None
    position: int
    tokens: list[str]
    norm_scale: float  # the final norm's frozen scale σ
    note: str = field(default="")
    notes: list[str] = field(default_factory=list)  # "tokens a–b of n" when the text was longer than the window

    @property
    def parts_sum(self) -> float:
        return self.embed + sum(sum(r) for r in self.attn) + sum(self.mlp) + self.bias

    def layer_totals(self) -> list[float]:
        """Per layer: its heads' (self and cross) sum plus its MLP."""
        totals = list(self.mlp)
        per_layer = len(self.attn) // max(1, self.layers)
        for i, row in enumerate(self.attn):
            totals[i // per_layer] += sum(row)
        return totals

    def to_dict(self) -> dict:
        return {"layers": self.layers, "heads": self.heads, "embed": self.embed, "attn": self.attn, "mlp": self.mlp,
                "bias": self.bias, "total": self.total, "approximation_gap": self.approximation_gap,
                "rows": self.rows, "target": self.target, "target_id": self.target_id, "contrast": self.contrast,
                "contrast_id": self.contrast_id, "position": self.position, "tokens": self.tokens,
                "norm_scale": self.norm_scale, "note": self.note} | ({"notes": list(self.notes)} if self.notes else {})


def _frozen_norm(norm: torch.nn.Module, r: torch.Tensor) -> tuple[float, torch.Tensor, torch.Tensor, bool]:
    """(σ, γ, the shift β, whether the mean is taken out) of the final norm at the residual ``r`` [H], float64."""
    weight = norm.weight.detach().double()
    if isinstance(norm, torch.nn.LayerNorm):
        sigma = float(torch.sqrt(r.var(unbiased=False) + norm.eps))
        shift = norm.bias.detach().double() if norm.bias is not None else torch.zeros_like(weight)
        return sigma, weight, shift, True
    eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", None))
    if eps is None or getattr(norm, "bias", None) is not None:
        raise WorkbenchError(f"{WHAT} does not know the final norm {type(norm).__name__}")
    if type(norm).__name__.startswith("Gemma"):
        weight = weight + 1.0  # Gemma's RMSNorm scales by 1 + γ
    return float(torch.sqrt((r * r).mean() + eps)), weight, torch.zeros_like(weight), False


def _projected(projection: torch.nn.Module, pieces: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(projection(piece) − projection(0) per row of ``pieces`` [N, in], projection(0)) in float64."""
    param = next(projection.parameters())
    with torch.inference_mode():
        both = projection(torch.cat([pieces, torch.zeros_like(pieces[:1])]).to(param.dtype)).double()
    return both[:-1] - both[-1:], both[-1]


def _head_pieces(z: torch.Tensor, heads: int) -> torch.Tensor:
    """[heads, in]: row h is ``z`` [in] with every column outside head h's slice zero."""
    width = z.shape[0] // heads
    pieces = torch.zeros(heads, z.shape[0], dtype=z.dtype, device=z.device)
    for h in range(heads):
        pieces[h, h * width:(h + 1) * width] = z[h * width:(h + 1) * width]
    return pieces


def _head_direction(loaded: LoadedModel, target: Target, y: torch.Tensor, u: torch.Tensor
                    ) -> tuple[torch.Tensor, float]:
    """(d [H]: the metric's gradient with respect to the final norm's output, the unembedding's own bias
    difference). ``u`` is what the unembedding read: the norm's output ``y`` times a scalar (T5's d^-½)."""
    head = loaded.model.get_output_embeddings()
    weight = head.weight.detach().double()
    scale = float((u @ y) / (y @ y)) if float(y @ y) > 0 else 1.0
    direction = weight[target.id] - (weight[target.contrast_id] if target.contrast_id is not None else 0.0)
    constant = 0.0
    for bias in (getattr(head, "bias", None), logits_bias(loaded.model)):
        if isinstance(bias, torch.Tensor):
            flat = bias.detach().double().reshape(-1)
            constant += float(flat[target.id] - (flat[target.contrast_id] if target.contrast_id is not None else 0.0))
    return scale * direction, constant


def _at(kept: list[torch.Tensor], position: int) -> torch.Tensor:
    """The one call's tensor [1, T, H] at ``position`` (T = 1: the head read one position) as float64 [H]."""
    tensor = kept[0]
    return tensor[0, position if tensor.shape[1] > 1 else 0].double()


def direct_logit_attribution(loaded: LoadedModel, text: str, target: str | None = None, contrast: str | None = None,
                             output_position: int = 0) -> DirectLogitAttribution:
    """Split the metric of ``target`` (default: the top token; minus ``contrast``'s logit with one) at the
    predicted position of ``text`` (an encoder-decoder: its output token ``output_position``)."""
    site = prediction_site(loaded, text, WHAT, output_position)
    parts = anatomy(loaded, WHAT)
    if not parts.pre_norm:
        raise NotASum(not_a_sum_note(loaded))
    chosen = resolve_target(loaded, site, target, contrast)
    return split_target(loaded, parts, chosen)


def split_target(loaded: LoadedModel, parts: Anatomy, chosen: Target) -> DirectLogitAttribution:
    """The split of a target already found on a pre-norm model's ``parts``."""
    site, p = chosen.site, chosen.site.position
    projections = [row.projection for row in parts.rows]
    head = loaded.model.get_output_embeddings()
    modules = [parts.blocks[0], *projections, *parts.mlps, parts.final_norm, head]
    with torch.inference_mode(), keeping_inputs(modules) as ins, keeping_outputs([parts.final_norm]) as outs:
        logits = position_logits(loaded, site, word_embeddings(loaded, site))
    if any(len(k) != 1 for k in ins):
        raise WorkbenchError(f"{WHAT}: a part of {loaded.info.model_type} ran more or less than once")
    n = len(projections)
    embed_vec = _at(ins[0], p)
    r, y, u = _at(ins[-2], p), _at(outs[0], p), _at(ins[-1], p)
    sigma, gamma, shift, centred = _frozen_norm(parts.final_norm, r)
    direction, constant = _head_direction(loaded, chosen, y, u)

    def share(v: torch.Tensor) -> torch.Tensor:  # [..., H] -> [...]: the metric's share of v
        if centred:
            v = v - v.mean(-1, keepdim=True)
        return (v * gamma / sigma) @ direction

    biases = torch.zeros_like(r)
    attn = []
    for row, kept in zip(parts.rows, ins[1:1 + n]):
        outputs, bias = _projected(row.projection, _head_pieces(_at(kept, p).to(kept[0].dtype), row.heads))
        attn.append([float(v) for v in share(outputs)])
        biases += bias
    mlp = []
    for module, kept in zip(parts.mlps, ins[1 + n:1 + n + len(parts.mlps)]):
        output, bias = _projected(module, _at(kept, p).to(kept[0].dtype)[None])
        mlp.append(float(share(output)[0]))
        biases += bias
    embed = float(share(embed_vec))
    bias = float(share(biases)) + float(shift @ direction) + constant
    total = float(target_metric(logits.double(), chosen)[0])
    gap = total - (embed + sum(sum(row) for row in attn) + sum(mlp) + bias)
    return DirectLogitAttribution(parts.layers, parts.heads, [row.name for row in parts.rows], embed, attn, mlp, bias,
                                  total, gap, chosen.token, chosen.id, chosen.contrast, chosen.contrast_id, p,
                                  site.tokens, sigma, FROZEN_NOTE.format(sigma=sigma), site.notes)

"""Reading an SAE's features: which fire on a text, each feature's top contexts over a corpus (with its
activation histogram and density), its logit effect, and search by token.

- ``features_on_text``: tokens, activations [T, d_sae], and the features active anywhere, strongest first
  (by their largest activation on the text);
- ``top_contexts``: for every feature at once, its ``n`` largest activations over the corpus with each one's
  text, position and the window's per-token activations; the density (share of tokens where the feature is > 0)
  and a histogram of its nonzero activations on ``BINS`` log-spaced bins (``EDGES``: 1e-3 to 1e3, four a decade;
  values outside go to the first or last bin), all in one pass over the corpus;
- ``logit_effect``: W_U · W_dec[i] [vocab], the decoder direction read through the unembedding (no final norm),
  its top promoted and suppressed tokens; ``null`` with a note where the site is not the residual width or the
  model has no head;
- ``promoting``: the features whose logit effect on a token is largest; ``firing_on``: the features whose top
  contexts peak on a token.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Generator

import torch

from lm_workbench.engine.progress import NEVER_CANCELLED, Progress
from lm_workbench.engine.sae.activations import DEFAULT_CONTEXT, encode, site_activations

EDGES = [10 ** (e / 4) for e in range(-12, 13)]  # 1e-3 .. 1e3, four bins a decade
BINS = len(EDGES) - 1


@dataclass
class TextFeatures:
    tokens: list[str]
    activations: torch.Tensor  # [T, d_sae]
    order: list[int]  # active features, strongest first

    def strip(self, limit: int = 20) -> dict[str, Any]:
        """The token × feature strip as JSON: ``features`` (strongest first) and ``values`` [T][features]."""
        chosen = self.order[:limit]
        return {"tokens": self.tokens, "features": chosen,
                "values": self.activations[:, chosen].tolist() if chosen else [[] for _ in self.tokens]}


@torch.no_grad()
def features_on_text(loaded: Any, site: Any, sae: Any, text: str) -> TextFeatures:
    acts, mask, batch = site_activations(loaded, site, [text])
    rows = acts[0][mask[0]]
    f = sae.encode(rows.float())
    ids = batch["input_ids"][0][mask[0]].tolist()
    tokens = [loaded.tokenizer.decode([i]) for i in ids]
    peak = f.max(0).values
    order = [int(i) for i in peak.argsort(descending=True).tolist() if peak[i] > 0]
    return TextFeatures(tokens, f, order)


@dataclass
class Context:
    activation: float
    line: int
    position: int
    tokens: list[str]
    values: list[float]  # the feature's activation on each token of the window
    peak: int  # the index in ``tokens`` of the peak token


@dataclass
class FeatureStats:
    feature: int
    density: float
    max_activation: float
    histogram: list[int]
    bin_edges: list[float]
    contexts: list[Context] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CorpusFeatures:
    """Every feature's top activations over ``tokens`` corpus tokens; ``stats(i)`` builds one feature's view."""

    values: torch.Tensor  # [n, d_sae] top activations, descending
    where: torch.Tensor  # [n, d_sae, 2] (line, position) of each
    density: torch.Tensor  # [d_sae]
    maxima: torch.Tensor  # [d_sae]
    histograms: torch.Tensor  # [d_sae, BINS] nonzero activations on the log-spaced ``EDGES``
    tokens: int
    lines: list[str]


def _length_sorted_chunks(lines: list[str], size: int, block: int = 256) -> Any:
    """Chunks of ``size`` line numbers: the corpus in blocks of ``block`` lines, each block's lines sorted by length
    (less padding per forward pass), so the first chunks still read the corpus's start."""
    for start in range(0, len(lines), block):
        order = sorted(range(start, min(start + block, len(lines))), key=lambda i: len(lines[i]))
        for i in range(0, len(order), size):
            yield order[i:i + size]


@torch.no_grad()
def top_contexts(loaded: Any, site: Any, sae: Any, lines: list[str], *, n: int = 10, max_tokens: int = 100_000,
                 chunk_texts: int = 16, context: int = DEFAULT_CONTEXT, cancel: Any = NEVER_CANCELLED
                 ) -> Generator[Progress, None, CorpusFeatures]:
    """One pass over ≈``max_tokens`` tokens: top-``n`` activations of every feature, density, maxima and the
    histograms."""
    d = sae.d_sae
    best = torch.full((d, n), -1.0)
    where = torch.zeros((d, n, 2), dtype=torch.long)
    active = torch.zeros(d)
    maxima = torch.zeros(d)
    histograms = torch.zeros(d, BINS)
    edges = torch.tensor(EDGES[1:-1])
    seen, line = 0, 0
    for chunk in _length_sorted_chunks(lines, chunk_texts):
        if seen >= max_tokens:
            break
        cancel.check()
        texts = [lines[i] for i in chunk]
        acts, mask, _ = site_activations(loaded, site, texts, context)
        b, t = mask.shape
        flat = (sae.encode(acts.float()) * mask[..., None]).reshape(b * t, d).t().contiguous()  # [d, B·T]
        nonzero = flat > 0
        active += nonzero.float().sum(1)
        maxima = torch.maximum(maxima, flat.max(1).values)
        histograms.scatter_add_(1, torch.bucketize(flat, edges), nonzero.float())
        values, index = flat.topk(min(n, b * t), dim=1)  # [d, k]
        loc = torch.stack([torch.tensor(chunk)[index // t], index % t], -1)
        merged, merged_where = torch.cat([best, values], 1), torch.cat([where, loc], 1)
        best, order = merged.topk(n, dim=1)
        where = torch.gather(merged_where, 1, order[..., None].expand(-1, -1, 2))
        line = max(line, max(chunk) + 1)
        seen += int(mask.sum())
        yield Progress(min(seen, max_tokens), max_tokens, f"top contexts: {seen} tokens")
    return CorpusFeatures(best.t().clamp_min(0).contiguous(), where.transpose(0, 1).contiguous(),
                          active / max(seen, 1), maxima, histograms, seen, lines[:line])


@torch.no_grad()
def feature_stats(loaded: Any, site: Any, sae: Any, corpus: CorpusFeatures, feature: int, *, window: int = 8,
                  context: int = DEFAULT_CONTEXT) -> FeatureStats:
    """One feature's view: its top contexts (a window of ±``window`` tokens around each peak, every token's
    activation), its density and its histogram."""
    maximum = float(corpus.maxima[feature])
    stats = FeatureStats(feature, float(corpus.density[feature]), maximum,
                         [int(v) for v in corpus.histograms[feature].tolist()], list(EDGES))
    for rank in range(corpus.values.shape[0]):
        value = float(corpus.values[rank, feature])
        if value <= 0:
            break
        line, position = (int(v) for v in corpus.where[rank, feature])
        acts, mask, batch = site_activations(loaded, site, [corpus.lines[line]], context)
        ids = batch["input_ids"][0]
        f = sae.encode(acts[0].float())[:, feature]
        lo, hi = max(0, position - window), min(int(mask[0].sum()), position + window + 1)
        stats.contexts.append(Context(value, line, position,
                                      [loaded.tokenizer.decode([i]) for i in ids[lo:hi].tolist()],
                                      [float(v) for v in f[lo:hi]], position - lo))
    return stats


def unembedding(loaded: Any) -> torch.Tensor | None:
    head = loaded.model.get_output_embeddings()
    return None if head is None else head.weight.detach().float()


@torch.no_grad()
def logit_effect(loaded: Any, sae: Any, feature: int, k: int = 10) -> tuple[dict[str, Any] | None, list[str]]:
    """({promoted, suppressed: [{token, id, value}]}, notes), or (None, notes) where it is not defined."""
    w_u = unembedding(loaded)
    if w_u is None:
        return None, ["logit_effect not defined: no LM head"]
    if w_u.shape[1] != sae.d_in:
        return None, [f"logit_effect not defined: the site is {sae.d_in} wide, the unembedding reads {w_u.shape[1]}"]
    effect = w_u @ sae.W_dec[feature].detach().float()
    up, down = effect.topk(k), (-effect).topk(k)
    word = loaded.tokenizer.decode
    return {"promoted": [{"token": word([int(i)]), "id": int(i), "value": float(v)} for v, i in zip(*up)],
            "suppressed": [{"token": word([int(i)]), "id": int(i), "value": -float(v)} for v, i in zip(*down)]}, []


@torch.no_grad()
def promoting(loaded: Any, sae: Any, token: str, k: int = 10) -> list[tuple[int, float]]:
    """The ``k`` features whose logit effect on ``token`` (its first id) is largest: [(feature, effect)]."""
    w_u = unembedding(loaded)
    if w_u is None or w_u.shape[1] != sae.d_in:
        return []
    ids = loaded.tokenizer(token, add_special_tokens=False)["input_ids"]
    if not ids:
        return []
    scores = sae.W_dec.detach().float() @ w_u[ids[0]]
    values, index = scores.topk(min(k, sae.d_sae))
    return [(int(i), float(v)) for v, i in zip(values, index)]


def firing_on(loaded: Any, corpus: CorpusFeatures, token: str, k: int = 10) -> list[int]:
    """Features whose strongest context peaks on ``token`` (compared stripped, case-insensitive)."""
    want = token.strip().lower()
    found = []
    for feature in range(corpus.values.shape[1]):
        if float(corpus.values[0, feature]) <= 0:
            continue
        line, position = (int(v) for v in corpus.where[0, feature])
        ids = encode(loaded, [corpus.lines[line]])["input_ids"][0]
        if position < len(ids) and loaded.tokenizer.decode([int(ids[position])]).strip().lower() == want:
            found.append(feature)
        if len(found) >= k:
            break
    return found

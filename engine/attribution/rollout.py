"""Attention rollout and attention flow (Abnar and Zuidema 2020, "Quantifying Attention Flow in Transformers").

Each layer's attention is averaged over its heads, and the residual connection is added as the paper does:
Ã = 0.5·A + 0.5·I, rows renormalised to sum to 1. Then

- rollout multiplies the layers: R = Ã_L · … · Ã_1, and row p of R is how much the top-layer token at p
  draws on each input token;
- flow treats the layers as a graph (a node per layer and token, an edge from token i in layer l to token j
  in layer l-1 with capacity Ã_l[i, j]) and scores each input token by the maximum flow from the top-layer
  node at p to it. The max-flow is scipy's (``scipy.sparse.csgraph.maximum_flow``, Dinic's algorithm), which
  needs integer capacities: they are scaled by ``FLOW_SCALE`` and rounded, so flows are exact to about
  1e-6 per edge.

``rollout`` and ``attention_flow`` are plain numpy on [layers, heads, T, T] arrays (row = query); the
``*_attribution`` functions run the model (eager attention, which returns the weights) and wrap the result.
"""

from __future__ import annotations

from typing import Generator

import numpy as np
import torch

from lm_workbench.engine.attribution.names import FLOW, ROLLOUT
from lm_workbench.engine.attribution.result import Attribution
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import Target
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion

FLOW_SCALE = 2**20  # capacities become integers: round(capacity * FLOW_SCALE)


def with_residual(attentions: np.ndarray) -> np.ndarray:
    """[layers, T, T]: heads averaged (when given [layers, heads, T, T]), 0.5·A + 0.5·I, rows renormalised."""
    weights = np.asarray(attentions, dtype=np.float64)
    if weights.ndim == 4:
        weights = weights.mean(axis=1)
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"attentions must be [layers, (heads,) T, T], not {list(np.shape(attentions))}")
    mixed = 0.5 * weights + 0.5 * np.eye(weights.shape[-1])
    sums = mixed.sum(axis=-1, keepdims=True)
    return np.divide(mixed, sums, out=np.zeros_like(mixed), where=sums > 0)


def rollout(attentions: np.ndarray) -> np.ndarray:
    """[T, T] rolled-out attention: Ã_L · … · Ã_1 (row = top-layer token, column = input token)."""
    layers = with_residual(attentions)
    joint = np.eye(layers.shape[-1])
    for layer in layers:  # lowest first: joint = Ã_l · joint
        joint = layer @ joint
    return joint


def flow_graph(attentions: np.ndarray) -> tuple[object, int]:
    """(the layered graph as a scipy CSR matrix of integer capacities, tokens per layer).

    Node ``l * T + t`` is token t after layer l (l = 0: the inputs); edges run from layer l down to l - 1."""
    from scipy.sparse import csr_matrix

    layers = with_residual(attentions)
    n_layers, tokens = layers.shape[0], layers.shape[-1]
    rows, cols, caps = [], [], []
    for l in range(1, n_layers + 1):
        capacity = np.rint(layers[l - 1] * FLOW_SCALE).astype(np.int64)
        i, j = np.nonzero(capacity)
        rows.append(l * tokens + i)
        cols.append((l - 1) * tokens + j)
        caps.append(capacity[i, j])
    size = (n_layers + 1) * tokens
    graph = csr_matrix((np.concatenate(caps).astype(np.int32), (np.concatenate(rows), np.concatenate(cols))),
                       shape=(size, size))
    return graph, tokens


def attention_flow_job(attentions: np.ndarray, position: int, cancel: CancelToken = NEVER_CANCELLED
                         ) -> Generator[Progress, None, np.ndarray]:
    """[T]: the maximum flow from the top-layer token at ``position`` to each input token; a job that yields
    Progress after each input token."""
    from scipy.sparse.csgraph import maximum_flow

    graph, tokens = flow_graph(attentions)
    top = (graph.shape[0] // tokens - 1) * tokens + position
    flows = np.zeros(tokens)
    for j in range(tokens):
        cancel.check()
        flows[j] = maximum_flow(graph, top, j).flow_value / FLOW_SCALE
        yield Progress(j + 1, tokens, "attention flow: input tokens")
    return flows


def attention_flow(attentions: np.ndarray, position: int) -> np.ndarray:
    """``attention_flow_job`` run to its end."""
    return run_to_completion(attention_flow_job(attentions, position))


def attention_weights(loaded: LoadedModel, target: Target) -> tuple[np.ndarray, float]:
    """([layers, heads, T, T] attention weights, the target's logit) from one eager forward pass."""
    site = target.site
    if site.kind == "seq2seq":
        raise WorkbenchError("rollout and flow follow one stack's self-attention, and an encoder-decoder's output "
                             "reads the encoder through cross-attention; use grad-input or integrated gradients")
    with loaded.attention_implementation("eager"), torch.inference_mode():
        out = loaded.model(**site.inputs, output_attentions=True)
    if not out.attentions or any(a is None for a in out.attentions):
        raise WorkbenchError(f"{loaded.info.spec} returns no attention weights; rollout and flow need them")
    weights = np.stack([a[0].float().cpu().numpy() for a in out.attentions])
    logits = out.logits[0] if site.kind == "classifier" else out.logits[0, site.position]
    return weights, float(logits[target.id])


def rollout_attribution(loaded: LoadedModel, target: Target) -> Attribution:
    """Rollout scores: row ``position`` of the rolled-out attention."""
    weights, logit = attention_weights(loaded, target)
    scores = rollout(weights)[target.site.position]
    return Attribution(ROLLOUT, target.site.tokens, [float(s) for s in scores], target.token, target.id,
                       target.site.position, logit)


def flow_attribution_job(loaded: LoadedModel, target: Target, cancel: CancelToken = NEVER_CANCELLED
                           ) -> Generator[Progress, None, Attribution]:
    """Flow scores, as a job: the maximum flow from the predicted position's top node to each input token."""
    weights, logit = attention_weights(loaded, target)
    scores = yield from attention_flow_job(weights, target.site.position, cancel)
    return Attribution(FLOW, target.site.tokens, [float(s) for s in scores], target.token, target.id,
                       target.site.position, logit)

"""The attention walkthrough: one head's attention for one query token, stage by stage, from the model's own
projections (the Attention tab's "step by step" panel; "steps" elsewhere are a lecture's).

Scaled dot-product attention (Vaswani et al. 2017) for query token ``i`` in
head ``h`` of a layer, with ``d_k`` the head's width:

1. ``q``: token i's query vector (the head's slice of the query projection);
2. ``keys``: every token's key vector k_j (the same slice of the key projection);
3. ``products``: q ⊙ k_j, elementwise, one row per key (what BertViz's neuron view shows);
4. ``scores``: each row's sum, the dot product q · k_j;
5. ``scaled``: the scores divided by √d_k (GPT-2 may also divide by the layer number);
6. ``weights``: the softmax over the keys the query may see — padding masked out,
   and for a causal model (GPT-2) every key after the query;
7. ``weighted``: each value vector v_j times its weight;
8. ``output``: their sum, the head's slice of the attention output for token i.

Nothing is re-derived from weights files: one forward pass of the loaded
model runs with hooks on its query, key and value projections and keeps what
they produced. Supported: BERT-family self-attention (``query``/``key``/
``value`` linear layers: BERT, RoBERTa, ELECTRA, MiniLM) and GPT-2 (the fused
``c_attn`` projection). Others (rotary positions as in LLaMA, T5's relative
position biases, encoder-decoders, ELMo's LSTMs) compute attention
differently and get a ``WorkbenchError`` saying so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

from lm_workbench.engine.anatomy.hooks import keeping_outputs
from lm_workbench.engine.anatomy.lookup import submodule
from lm_workbench.engine.anatomy.tables import BERT_QKV, FUSED_QKV, WALKTHROUGH
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken
from lm_workbench.engine.text_window import read_text
from lm_workbench.engine.tokens import TokenizedText

STAGES = ("query", "keys", "products", "scores", "scaled", "weights", "weighted", "output")
"""The stages in order, as ``AttentionWalkthrough`` fields (the panel shows one at a time)."""


@dataclass(frozen=True)
class AttentionWalkthrough:
    """Every intermediate of one head's attention for one query token (float64 numpy arrays)."""

    layer: int
    head: int
    query_index: int
    tokens: list[str]
    architecture: str  # "bert" | "gpt2"
    causal: bool
    d_k: int
    divisor: float  # what the scores are divided by: √d_k (times layer + 1 for some GPT-2s)
    query: np.ndarray  # [d_k]
    keys: np.ndarray  # [T, d_k]
    products: np.ndarray  # [T, d_k] q ⊙ k_j
    scores: np.ndarray  # [T] q · k_j
    scaled: np.ndarray  # [T] scores / divisor
    visible: np.ndarray  # [T] bool: keys the query may attend to (mask applied)
    weights: np.ndarray  # [T] softmax over the visible keys, 0 elsewhere
    values: np.ndarray  # [T, d_k]
    weighted: np.ndarray  # [T, d_k] weight_j · v_j
    output: np.ndarray  # [d_k] the head's output for the query token

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class _Projections:
    architecture: str
    heads: int
    causal: bool
    divisor: float
    modules: list[torch.nn.Module]  # the projections whose outputs are kept
    unpack: Callable[[list[torch.Tensor]], dict[str, torch.Tensor]]  # their outputs -> query, key, value [1, T, H]


def _bert_family(base: Any, layer: int) -> _Projections | None:
    blocks_at, attn_at = WALKTHROUGH["bert"]
    layers = submodule(base, blocks_at)
    if layers is None or not 0 <= layer < len(layers):
        return None
    attn = submodule(layers[layer], attn_at)
    if attn is None or not all(hasattr(attn, n) for n in BERT_QKV):
        return None
    if getattr(base.config, "position_embedding_type", "absolute") not in (None, "absolute"):
        raise WorkbenchError("this BERT-family model adds relative position terms to its attention scores; "
                             "the step-by-step view covers plain (absolute-position) attention only")
    heads = base.config.num_attention_heads
    d_k = attn.query.out_features // heads

    modules = [getattr(attn, n) for n in BERT_QKV]
    return _Projections("bert", heads, bool(getattr(base.config, "is_decoder", False)), math.sqrt(d_k), modules,
                        lambda outputs: dict(zip(BERT_QKV, outputs)))


def _gpt2(base: Any, layer: int) -> _Projections | None:
    blocks_at, attn_at = WALKTHROUGH["gpt2"]
    blocks = submodule(base, blocks_at)
    if blocks is None or not 0 <= layer < len(blocks):
        return None
    attn = submodule(blocks[layer], attn_at)
    fused = getattr(attn, FUSED_QKV["gpt2"], None)
    if attn is None or fused is None or getattr(attn, "is_cross_attention", False):
        return None
    config = base.config
    heads = config.num_attention_heads
    d_k = config.hidden_size // heads
    divisor = math.sqrt(d_k) if getattr(config, "scale_attn_weights", True) else 1.0
    if getattr(config, "scale_attn_by_inverse_layer_idx", False):
        divisor *= layer + 1

    def unpack(outputs: list[torch.Tensor]) -> dict[str, torch.Tensor]:
        return dict(zip(BERT_QKV, outputs[0].split(config.hidden_size, dim=-1)))

    return _Projections("gpt2", heads, True, divisor, [fused], unpack)


def _projections(loaded: LoadedModel, layer: int) -> _Projections:
    if loaded.family.value in ("encoder-decoder", "biLM"):
        raise WorkbenchError(f"step-by-step attention covers BERT-family encoders and GPT-2, not "
                             f"{loaded.family.value} models")
    _check_index("layer", layer, loaded.info.layers)
    base = loaded.base_model
    for finder in (_bert_family, _gpt2):
        found = finder(base, layer)
        if found is not None:
            return found
    arch = type(base).__name__
    raise WorkbenchError(f"step-by-step attention covers BERT-family encoders and GPT-2; {arch} computes its "
                         "attention differently (rotary positions, relative biases, or no attention at all)")


def _check_index(what: str, value: int, count: int) -> None:
    if not 0 <= value < count:
        raise WorkbenchError(f"{what} {value} does not exist: there are {count} ({what}s 0..{count - 1})")


def attention_walkthrough(loaded: LoadedModel, text: str | TokenizedText, pair: str | None = None, *, layer: int,
                    head: int, query: int, cancel: CancelToken = NEVER_CANCELLED) -> AttentionWalkthrough:
    """Every step of head ``head`` in layer ``layer`` for the token at ``query`` (see the module docstring)."""
    proj = _projections(loaded, layer)
    _check_index("head", head, proj.heads)
    tok = text if isinstance(text, TokenizedText) else read_text(loaded, text, pair)
    _check_index("query token", query, len(tok))
    cancel.check()
    device = loaded.device.torch_device
    ids = torch.tensor([tok.ids], dtype=torch.long, device=device)
    mask = torch.ones_like(ids)
    extra = {name: torch.tensor([values], dtype=torch.long, device=device) for name, values in tok.extra_inputs.items()}
    with torch.inference_mode(), keeping_outputs(proj.modules) as kept:
        loaded.base_model(input_ids=ids, attention_mask=mask, **extra)
    store = proj.unpack([outputs[-1] for outputs in kept])
    cancel.check()
    d_k = store["query"].shape[-1] // proj.heads
    cols = slice(head * d_k, (head + 1) * d_k)

    def head_slice(name: str) -> np.ndarray:
        return store[name][0, :, cols].float().cpu().numpy().astype(np.float64)

    q_all, keys, values = head_slice("query"), head_slice("key"), head_slice("value")
    q = q_all[query]
    products = q[None, :] * keys
    scores = products.sum(axis=1)
    scaled = scores / proj.divisor
    positions = np.arange(len(tok))
    visible = mask[0].cpu().numpy().astype(bool)
    if proj.causal:
        visible &= positions <= query
    shifted = np.where(visible, scaled - scaled[visible].max(), -np.inf)
    exp = np.exp(shifted)
    weights = exp / exp.sum()
    weighted = weights[:, None] * values
    return AttentionWalkthrough(
        layer=layer, head=head, query_index=query, tokens=list(tok.tokens), architecture=proj.architecture,
        causal=proj.causal, d_k=d_k, divisor=proj.divisor, query=q, keys=keys, products=products, scores=scores,
        scaled=scaled, visible=visible, weights=weights, values=values, weighted=weighted,
        output=weighted.sum(axis=0),
    )

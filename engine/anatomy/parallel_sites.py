"""Where a parallel adapter sits in each family: which module's input it reads and where its output joins.

He et al. (2022) compute a parallel adapter from the sublayer's input x and add s·f(x) to the sublayer's
output after the sublayer's own dropout, before the residual add (and, post-LN, before the LayerNorm). Per
family (one ``ParallelSite`` per sublayer and layer):

- BERT-style post-LN encoders (``how="input_tensor"``): the attention's ``*SelfOutput`` and the feed-forward's
  ``*Output`` compute LN(dropout(dense(·)) + x) with x, the sublayer's input, passed in as ``input_tensor``;
  a pre-hook turns it into x + s·f(x).
- GPT-2 and Llama-style pre-LN decoders (``how="output"``): ``attn``/``self_attn`` and ``mlp`` read
  x = LN(block input) and end with their own dropout (Llama has none); a hook adds s·f(x) to their output.
- BART (post-LN; ``how="joined"``): each encoder and decoder layer computes
  LN(residual + dropout(fc2(act(fc1(x))))) for the FFN and LN(residual + dropout(self_attn(x))) for
  self-attention, with no module around either sublayer. A pre-hook on ``fc1`` (``self_attn``) computes
  s·f(x) from x, and a pre-hook on ``final_layer_norm`` (``self_attn_layer_norm``) adds it to that
  LayerNorm's input, i.e. after the dropout and beside the residual, as for BERT. The decoder's
  cross-attention (``encoder_attn``) gets none: "attention" is self-attention in every family.
- T5 (pre-LN; ``how="joined"``): ``T5LayerFF`` computes h + dropout(DenseReluDense(LN(h))) and
  ``T5LayerSelfAttention`` h + dropout(SelfAttention(LN(h))); a pre-hook on ``DenseReluDense``
  (``SelfAttention``) computes s·f(x) from its input x = LN(h), and a hook on the ``T5Layer*`` adds it to the
  output. Cross-attention (``EncDecAttention``) gets none.

The adapter is a module of the module whose input it reads (``….fc1.parallel_adapter``,
``….DenseReluDense.parallel_adapter``, ``….mlp.parallel_adapter``), so every base parameter keeps its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

PARALLEL_SITES = ("attention", "feed_forward")
_BERT_STYLE = ("Bert", "Roberta", "XLMRoberta", "Electra", "Camembert")
_WHERE = {"attention": "the attention sublayer (a BERT-style *SelfOutput, GPT-2's attn, a Llama-style self_attn, "
                       "BART's self_attn or T5's SelfAttention)",
          "feed_forward": "the feed-forward sublayer (a BERT-style *Output, GPT-2's or a Llama-style mlp, BART's "
                          "fc1/fc2 or T5's DenseReluDense)"}
FAMILIES = "BERT-style encoders, GPT-2, Llama-style decoders, BART and T5"
_LLAMA_EXTRA_NORMS = ("pre_feedforward_layernorm", "post_feedforward_layernorm")  # Gemma 2/3: not this layout


@dataclass(frozen=True)
class ParallelSite:
    name: str  # the name of the module whose input the adapter reads (it holds the adapter)
    module: nn.Module
    sublayer: str  # "attention" or "feed_forward"
    hidden: int
    how: str  # "input_tensor" (BERT-style), "output" (GPT-2, Llama-style) or "joined" (BART, T5)
    joiner: nn.Module | None = None  # "joined": the module where s·f(x) joins
    join_at: str = ""  # "joined": "norm_input" (BART: the LayerNorm's input) or "output" (T5: the layer's output)

    @property
    def post_ln(self) -> bool:
        """True for a BERT-style site (API 2.3's field, kept for plugins that read it)."""
        return self.how == "input_tensor"


def _bert_output(module: nn.Module) -> bool:
    return all(hasattr(module, a) for a in ("dense", "dropout", "LayerNorm")) and isinstance(module.dense, nn.Linear)


def _bert_or_gpt2(name: str, module: nn.Module, kind: str) -> list[ParallelSite]:
    if "crossattention" in name:
        return []
    if kind.startswith(_BERT_STYLE) and _bert_output(module):
        if kind.endswith("SelfOutput"):
            return [ParallelSite(name, module, "attention", module.dense.out_features, "input_tensor")]
        if kind.endswith("Output"):
            return [ParallelSite(name, module, "feed_forward", module.dense.out_features, "input_tensor")]
    width = getattr(getattr(module, "c_proj", None), "nf", None)
    if kind == "GPT2Attention" and width:
        return [ParallelSite(name, module, "attention", width, "output")]
    if kind == "GPT2MLP" and width:
        return [ParallelSite(name, module, "feed_forward", width, "output")]
    return []


def _llama_layer(name: str, layer: nn.Module) -> list[ParallelSite]:
    """A pre-LN decoder layer laid out as Llama's: input_layernorm → self_attn, post_attention_layernorm → mlp."""
    if not all(hasattr(layer, a) for a in ("input_layernorm", "post_attention_layernorm", "self_attn", "mlp")):
        return []
    if any(hasattr(layer, a) for a in _LLAMA_EXTRA_NORMS):
        return []
    out = getattr(layer.self_attn, "o_proj", None)
    down = getattr(layer.mlp, "down_proj", None)
    if not (isinstance(out, nn.Linear) and isinstance(down, nn.Linear)):
        return []
    return [ParallelSite(f"{name}.self_attn", layer.self_attn, "attention", out.out_features, "output"),
            ParallelSite(f"{name}.mlp", layer.mlp, "feed_forward", down.out_features, "output")]


def _bart_layer(name: str, layer: nn.Module, kind: str) -> list[ParallelSite]:
    """BART's post-LN encoder and decoder layers (mBART, Marian and Pegasus are pre-LN: not these hooks)."""
    if not (kind.startswith("Bart") and kind.endswith(("EncoderLayer", "DecoderLayer"))):
        return []
    if not all(isinstance(getattr(layer, a, None), nn.Linear) for a in ("fc1", "fc2")):
        return []
    hidden = layer.fc2.out_features
    return [ParallelSite(f"{name}.self_attn", layer.self_attn, "attention", hidden, "joined",
                         layer.self_attn_layer_norm, "norm_input"),
            ParallelSite(f"{name}.fc1", layer.fc1, "feed_forward", hidden, "joined", layer.final_layer_norm,
                         "norm_input")]


def _t5_sublayer(name: str, module: nn.Module, kind: str) -> list[ParallelSite]:
    """T5's ``T5LayerSelfAttention`` and ``T5LayerFF`` (and mT5's, named alike): pre-LN, dropout inside."""
    norm = getattr(module, "layer_norm", None)
    hidden = getattr(getattr(norm, "weight", None), "shape", (0,))[0]
    if kind.endswith("LayerFF") and hasattr(module, "DenseReluDense") and hidden:
        return [ParallelSite(f"{name}.DenseReluDense", module.DenseReluDense, "feed_forward", hidden, "joined",
                             module, "output")]
    if kind.endswith("LayerSelfAttention") and hasattr(module, "SelfAttention") and hidden:
        return [ParallelSite(f"{name}.SelfAttention", module.SelfAttention, "attention", hidden, "joined",
                             module, "output")]
    return []


def find_sites(model: nn.Module) -> list[ParallelSite]:
    """Every parallel-adapter site of ``model``, in module order (attention before FFN within a layer)."""
    sites: list[ParallelSite] = []
    for name, module in model.named_modules():
        kind = type(module).__name__
        sites += (_bert_or_gpt2(name, module, kind) or _llama_layer(name, module) or _bart_layer(name, module, kind)
                  or _t5_sublayer(name, module, kind))
    return sites


def missing_site_reason(model: nn.Module, sublayer: str, method: str) -> str:
    return (f"{method} cannot attach to {type(model).__name__}: its parallel adapter needs {_WHERE[sublayer]}, "
            f"which this model does not have (parallel adapters attach to {FAMILIES})")

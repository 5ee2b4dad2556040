"""Model architectures to pre-train from scratch: presets, configs, models and their size.

The presets are the compact BERT sizes of Turc et al. 2019 ("Well-Read
Students Learn Better"): tiny L2/H128, mini L4/H256, small L4/H512, base
L12/H768, with A = H/64 attention heads and a 4H feed-forward layer. Each
family maps them to its own config; an encoder-decoder gets L layers in EACH
stack. Any number can be edited freely (``ArchitectureSpec`` fields left None
take the preset's value).

ELMo (family ``elmo``) has its own sizes, ``ELMO_PRESETS``: ``tiny`` (a test
and demo size) and ``course`` (lm_workbench.engine.elmo's course biLM); ``layers`` edits
the LSTM layers per direction, ``hidden`` the projection width and
``intermediate`` the LSTM cell size; it has no attention heads and no dropout setting. Its softmax
covers the first ``vocab_size`` words of the word vocabulary.

``dropout`` (None: the family's own default, 0.1 in BERT, GPT-2, BART and T5) sets every dropout probability
of a transformer family's config (``DROPOUT_FIELDS``): hidden states, attention weights and, where the family
has one, the feed-forward activation. T5 1.1 pre-trains with dropout off ("a quality win"; re-enabled for
fine-tuning), and so does the course T5 (``lm_workbench.pretrain.course_models``).

``count_parameters`` builds the model on PyTorch's "meta" device: the same
code as ``build_model``, so the count is exact (tied embeddings counted once),
but no memory is allocated and no weights are initialised, so the form can
show a BERT-base count in a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.pretrain.names import FAMILIES, TRANSFORMER_SIZES
from lm_workbench.engine.wording import with_article

PRESETS = TRANSFORMER_SIZES  # name -> (layers, hidden)
HEAD_DIM = 64
# The config fields ``ArchitectureSpec.dropout`` sets, per family (every dropout probability the model has).
DROPOUT_FIELDS = {
    "bert": ("hidden_dropout_prob", "attention_probs_dropout_prob"),
    "gpt2": ("resid_pdrop", "embd_pdrop", "attn_pdrop"),
    "bart": ("dropout", "attention_dropout", "activation_dropout"),
    "t5": ("dropout_rate",),
}
ENGINE_FAMILY = {
    "bert": Family.ENCODER, "gpt2": Family.DECODER, "bart": Family.ENCODER_DECODER, "t5": Family.ENCODER_DECODER,
    "elmo": Family.BILM,
}
# The heads each family can be built with (lm_workbench.engine.objectives.api.HEADS names).
FAMILY_HEADS = {
    "bert": ("mlm", "pretraining-nsp"), "gpt2": ("causal-lm",), "bart": ("seq2seq-lm",), "t5": ("seq2seq-lm",),
    "elmo": ("bilm",),
}
DEFAULT_HEAD = {family: heads[0] for family, heads in FAMILY_HEADS.items()}
_MODEL_CLASS = {
    ("bert", "mlm"): "BertForMaskedLM", ("bert", "pretraining-nsp"): "BertForPreTraining",
    ("gpt2", "causal-lm"): "GPT2LMHeadModel", ("bart", "seq2seq-lm"): "BartForConditionalGeneration",
    ("t5", "seq2seq-lm"): "T5ForConditionalGeneration",
}


@dataclass
class ArchitectureSpec:
    """A family, a preset and optional edits; ``resolved()`` fills in the preset's numbers."""

    family: str
    preset: str = "tiny"
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    intermediate: int | None = None
    max_positions: int = 512
    dropout: float | None = None

    def resolved(self) -> "ArchitectureSpec":
        """A copy with every number concrete and checked; ``WorkbenchError`` names a bad one."""
        if self.family not in FAMILIES:
            raise WorkbenchError(f"unknown model family {self.family!r}; choose one of {', '.join(FAMILIES)}")
        if self.family == "elmo":
            return self._resolved_elmo()
        if self.preset not in PRESETS:
            raise WorkbenchError(f"unknown preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        preset_layers, preset_hidden = PRESETS[self.preset]
        layers = self.layers if self.layers is not None else preset_layers
        hidden = self.hidden if self.hidden is not None else preset_hidden
        heads = self.heads if self.heads is not None else max(1, hidden // HEAD_DIM)
        intermediate = self.intermediate if self.intermediate is not None else 4 * hidden
        for name, value in (("layers", layers), ("hidden", hidden), ("heads", heads),
                            ("intermediate", intermediate), ("max_positions", self.max_positions)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise WorkbenchError(f"{name} must be a positive whole number, not {value!r}")
        if hidden % heads:
            raise WorkbenchError(f"hidden size {hidden} is not divisible by {heads} attention heads")
        if self.dropout is not None and (isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float))
                                         or not 0.0 <= float(self.dropout) < 1.0):
            raise WorkbenchError(f"dropout must be a probability from 0 up to (not including) 1, not {self.dropout!r}")
        return replace(self, layers=layers, hidden=hidden, heads=heads, intermediate=intermediate)

    def _resolved_elmo(self) -> "ArchitectureSpec":
        from lm_workbench.engine.elmo.presets import ELMO_PRESETS

        if self.preset not in ELMO_PRESETS:
            raise WorkbenchError(f"unknown ELMo preset {self.preset!r}; choose one of {', '.join(ELMO_PRESETS)}")
        if self.heads is not None:
            raise WorkbenchError("ELMo has no attention heads: leave heads unset")
        if self.dropout is not None:
            raise WorkbenchError("ELMo has no dropout setting: leave dropout unset")
        base = ELMO_PRESETS[self.preset]
        layers = self.layers if self.layers is not None else base.n_layers
        hidden = self.hidden if self.hidden is not None else base.projection_dim
        intermediate = self.intermediate if self.intermediate is not None else base.lstm_dim
        for name, value in (("layers", layers), ("hidden", hidden), ("intermediate", intermediate)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise WorkbenchError(f"{name} must be a positive whole number, not {value!r}")
        if hidden > intermediate:
            raise WorkbenchError(f"ELMo's projection (hidden {hidden}) cannot be wider than its LSTM cell "
                                 f"(intermediate {intermediate})")
        return replace(self, layers=layers, hidden=hidden, intermediate=intermediate)


def _elmo_config(spec: ArchitectureSpec, vocab_size: int) -> Any:
    from dataclasses import replace as replace_fields

    from lm_workbench.engine.elmo.presets import ELMO_PRESETS

    s = spec.resolved()
    return replace_fields(ELMO_PRESETS[s.preset], n_layers=s.layers, projection_dim=s.hidden,
                          lstm_dim=s.intermediate, vocab_size=int(vocab_size))


def _config(spec: ArchitectureSpec, vocab_size: int, ids: dict[str, int | None]) -> Any:
    """The family's transformers config for concrete numbers, special-token ids and dropout."""
    s = spec.resolved()
    config = _family_config(s, vocab_size, ids)
    if s.dropout is not None:
        for name in DROPOUT_FIELDS[s.family]:
            setattr(config, name, float(s.dropout))
    return config


def _family_config(s: ArchitectureSpec, vocab_size: int, ids: dict[str, int | None]) -> Any:
    import transformers as tf

    if vocab_size < 1:
        raise WorkbenchError(f"vocabulary size must be positive, not {vocab_size}")
    if s.family == "bert":
        return tf.BertConfig(vocab_size=vocab_size, hidden_size=s.hidden, num_hidden_layers=s.layers,
                             num_attention_heads=s.heads, intermediate_size=s.intermediate,
                             max_position_embeddings=s.max_positions, type_vocab_size=2,
                             pad_token_id=ids["pad"])
    if s.family == "gpt2":
        return tf.GPT2Config(vocab_size=vocab_size, n_embd=s.hidden, n_layer=s.layers, n_head=s.heads,
                             n_inner=s.intermediate, n_positions=s.max_positions, bos_token_id=ids["bos"],
                             eos_token_id=ids["eos"], pad_token_id=ids["pad"])
    if s.family == "bart":
        return tf.BartConfig(vocab_size=vocab_size, d_model=s.hidden, encoder_layers=s.layers,
                             decoder_layers=s.layers, encoder_attention_heads=s.heads,
                             decoder_attention_heads=s.heads, encoder_ffn_dim=s.intermediate,
                             decoder_ffn_dim=s.intermediate, max_position_embeddings=s.max_positions,
                             pad_token_id=ids["pad"], bos_token_id=ids["bos"], eos_token_id=ids["eos"],
                             decoder_start_token_id=ids["eos"], forced_eos_token_id=ids["eos"])
    # T5 has relative positions: no position table, so max_positions only bounds the examples.
    return tf.T5Config(vocab_size=vocab_size, d_model=s.hidden, d_kv=s.hidden // s.heads, d_ff=s.intermediate,
                       num_layers=s.layers, num_decoder_layers=s.layers, num_heads=s.heads,
                       pad_token_id=ids["pad"], eos_token_id=ids["eos"], decoder_start_token_id=ids["pad"])


def _placeholder_ids(family: str) -> dict[str, int | None]:
    """Special ids as ``train_tokenizer`` lays them out (they do not change any parameter count)."""
    return {"bert": {"pad": 0, "bos": None, "eos": None}, "gpt2": {"pad": 1, "bos": 0, "eos": 0},
            "bart": {"pad": 1, "bos": 0, "eos": 2}, "t5": {"pad": 0, "bos": None, "eos": 1}}[family]


def build_config(spec: ArchitectureSpec, tokenizer: Any, softmax_size: int | None = None) -> Any:
    """The config for ``spec`` with the tokenizer's vocabulary size and special-token ids.

    ELMo: an ``ElmoConfig`` whose softmax has ``softmax_size`` rows (default: the whole word vocabulary).
    """
    if spec.family == "elmo":
        return _elmo_config(spec, min(len(tokenizer), softmax_size or len(tokenizer)))
    ids = {"pad": tokenizer.pad_token_id, "bos": tokenizer.bos_token_id, "eos": tokenizer.eos_token_id}
    family = spec.family
    if family in ("gpt2", "bart", "t5") and ids["eos"] is None:
        raise WorkbenchError(f"{with_article(family)} model needs a tokenizer with an end-of-sequence token")
    if family == "gpt2" and ids["bos"] is None:
        ids["bos"] = ids["eos"]
    if family == "bart" and ids["bos"] is None:
        raise WorkbenchError("a bart model needs a tokenizer with a beginning-of-sequence token (<s>)")
    if ids["pad"] is None:
        if family != "gpt2":
            raise WorkbenchError(f"{with_article(family)} model needs a tokenizer with a padding token")
        ids["pad"] = ids["eos"]
    config = _config(spec, len(tokenizer), ids)
    if family == "t5":  # informative only: T5 has no position table (lm_workbench.engine.models.families.max_positions reads it)
        config.n_positions = spec.max_positions
    return config


def _family_of(config: Any) -> str:
    model_type = getattr(config, "model_type", "")
    if model_type not in FAMILIES:
        raise WorkbenchError(f"cannot pre-train a {model_type!r} model; families: {', '.join(FAMILIES)}")
    return model_type


def model_class(family: str, head: str) -> Any:
    """The transformers class for a family and head; ``WorkbenchError`` when they do not go together."""
    import transformers

    name = _MODEL_CLASS.get((family, head))
    if name is None:
        heads = ", ".join(FAMILY_HEADS.get(family, ()))
        raise WorkbenchError(f"{with_article(family)} model cannot have a {head!r} head; it takes {heads or 'none'}")
    return getattr(transformers, name)


def build_model(config: Any, head: str) -> Any:
    """A freshly initialised model with ``head`` (seed torch before calling for reproducible weights)."""
    from lm_workbench.engine.elmo.config import ElmoConfig

    if isinstance(config, ElmoConfig):
        if head != "bilm":
            raise WorkbenchError(f"an elmo model cannot have a {head!r} head; it takes bilm")
        from lm_workbench.engine.elmo.bilm import ElmoModel

        return ElmoModel(config)
    return model_class(_family_of(config), head)(config)


@lru_cache(maxsize=256)
def _count(numbers: tuple, vocab_size: int, head: str) -> int:
    import torch

    spec = ArchitectureSpec(*numbers)
    if spec.family == "elmo":
        from lm_workbench.engine.elmo.bilm import ElmoModel

        with torch.device("meta"):
            return sum(p.numel() for p in ElmoModel(_elmo_config(spec, vocab_size)).parameters())
    cls = model_class(spec.family, head)
    config = _config(spec, vocab_size, _placeholder_ids(spec.family))
    with torch.device("meta"):
        model = cls(config)
    return sum(p.numel() for p in model.parameters())


def count_parameters(spec: ArchitectureSpec, vocab_size: int, head: str) -> int:
    """The exact parameter count of ``build_model(build_config(spec, tok), head)`` for a ``vocab_size`` vocabulary."""
    r = spec.resolved()
    numbers = (r.family, r.preset, r.layers, r.hidden, r.heads, r.intermediate, r.max_positions)
    return _count(numbers, int(vocab_size), head)  # dropout changes no parameter


__all__ = [
    "ArchitectureSpec", "DEFAULT_HEAD", "DROPOUT_FIELDS", "ENGINE_FAMILY", "FAMILY_HEADS", "HEAD_DIM", "PRESETS",
    "build_config", "build_model", "count_parameters", "model_class",
]

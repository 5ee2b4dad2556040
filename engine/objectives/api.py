"""The objective protocol: what a pre-training objective plugin implements.

An ``Objective`` turns token ids into a training ``Batch`` (``make_batch``) and
a forward pass into a loss (``loss``, which receives a ``LossContext``: the
objective's config, its trainable heads and its frozen auxiliary models). It
declares the plugin API version it was written for and what it needs: the model
families it applies to, the head (``requires.head``) and the tokenizer tokens
(``requires.tokens``), which ``check_requirements`` verifies before training
starts; its settings are a ``Config`` dataclass (see ``config_fields``).
Randomness comes only from the ``numpy.random.Generator`` passed in, so the
same generator state gives the same batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from lm_workbench.engine.wording import with_article
from lm_workbench.engine.api_version import API_VERSION
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.objectives.config_fields import validate_config

# The heads an objective can ask for.
HEADS = ("mlm", "causal-lm", "seq2seq-lm", "pretraining-nsp", "bilm")
# Tokens an objective can ask the tokenizer for: attributes such as ``mask_token``, or "sentinels"
# (T5's <extra_id_N> tokens, at least two).
TOKENS = ("mask_token", "sentinels", "bos_token", "eos_token", "pad_token", "cls_token", "sep_token")
# ELMo's bidirectional LM family, as the string objectives list in ``families``.
BILM = Family.BILM.value

_HEAD_NAMES = {
    "mlm": "a masked-LM head", "causal-lm": "a causal-LM head", "seq2seq-lm": "a sequence-to-sequence LM head",
    "pretraining-nsp": "BERT's pre-training heads (MLM and next-sentence)", "bilm": "a biLM head",
}


@dataclass(frozen=True)
class Requirements:
    """What an objective needs from the model and its tokenizer."""

    head: str
    tokens: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(self.tokens))
        if self.head not in HEADS:
            raise ValueError(f"head {self.head!r} is not one of {', '.join(HEADS)}")
        unknown = [t for t in self.tokens if t not in TOKENS]
        if unknown:
            raise ValueError(f"unknown token requirement(s) {unknown}; known: {', '.join(TOKENS)}")


@dataclass(frozen=True)
class LossContext:
    """What ``Objective.loss`` gets besides the model and the batch.

    ``config`` is the objective's ``Config`` for this run; ``heads`` the
    trainable modules of ``build_heads`` (by name); ``aux`` the frozen models
    of ``auxiliary_models`` (by name, e.g. a distillation teacher). Both
    mappings are read-only.
    """

    config: Any
    heads: Mapping[str, Any] = field(default_factory=dict)
    aux: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", MappingProxyType(dict(self.heads or {})))
        object.__setattr__(self, "aux", MappingProxyType(dict(self.aux or {})))


def _info_of(loaded_or_info: Any) -> dict[str, Any]:
    """A dict view of a LoadedModel, a ModelInfo or a plain dict."""
    info = getattr(loaded_or_info, "info", loaded_or_info)
    if isinstance(info, dict):
        return info
    to_dict = getattr(info, "to_dict", None)
    return to_dict() if callable(to_dict) else dict(vars(info))


def _tokenizer_name(tokenizer: Any) -> str:
    return str(getattr(tokenizer, "name_or_path", "") or "the tokenizer").rstrip("/").split("/")[-1]


def _count_sentinels(tokenizer: Any) -> int:
    vocab = tokenizer.get_vocab()
    n = 0
    while f"<extra_id_{n}>" in vocab:
        n += 1
    return n


class Objective:
    """Base class of pre-training objectives. Subclasses set the class attributes and override the methods.

    ``api_version`` is the plugin API version the objective was written for
    ("MAJOR.MINOR", e.g. ``"2.0"``); one with another major version, or none,
    is refused. ``families`` holds ``Family`` values (or ``BILM``). ``paper`` cites the
    source the objective follows. Instances hold no state: everything an
    objective does depends on its arguments.
    """

    name: ClassVar[str] = ""
    api_version: ClassVar[str | int | None] = None
    families: ClassVar[frozenset] = frozenset()
    requires: ClassVar[Requirements] = Requirements("mlm")
    description: ClassVar[str] = ""
    paper: ClassVar[str] = ""

    @dataclass
    class Config:
        """No settings."""

    # -- settings -----------------------------------------------------------------
    def default_config(self) -> Any:
        return self.Config()

    def check_config(self, config: Any) -> None:
        """Raise ``WorkbenchError`` naming a bad field; subclasses add checks across fields."""
        validate_config(config, self.name)

    # -- requirements -----------------------------------------------------------
    def requirements(self, config: Any = None) -> Requirements:
        """What this objective needs under ``config``; ``requires`` unless a setting changes it.

        Override when a setting asks for more (``mlm`` with next-sentence
        prediction needs the "pretraining-nsp" head).
        """
        return self.requires

    def check_requirements(self, tokenizer: Any, loaded_or_info: Any = None, config: Any = None) -> None:
        """Raise ``WorkbenchError`` when the tokenizer or the model cannot serve this objective.

        ``loaded_or_info`` is a ``LoadedModel``, its ``ModelInfo``, a dict with
        the same keys, or None to check the tokenizer only. ``config`` (None:
        the defaults) selects the requirements (see ``requirements``).
        """
        requires = self.requirements(config)
        if tokenizer is not None:
            for need in requires.tokens:
                self._check_token(tokenizer, need)
        if loaded_or_info is None:
            return
        info = _info_of(loaded_or_info)
        family = str(info.get("family", ""))
        allowed = sorted(getattr(f, "value", str(f)) for f in self.families)
        if allowed and family not in allowed:
            raise WorkbenchError(
                f"{self.name} is for {' or '.join(allowed)} models; {info.get('spec') or 'this model'} is {with_article(family)}"
            )
        head = requires.head
        present = {
            "mlm": info.get("has_mlm_head"), "pretraining-nsp": info.get("has_mlm_head"),
            "causal-lm": info.get("has_lm_head"), "seq2seq-lm": info.get("has_lm_head"),
            "bilm": info.get("has_bilm_head"),
        }[head]
        if present is False:
            raise WorkbenchError(
                f"{self.name} needs {_HEAD_NAMES[head]}, and {info.get('spec') or 'this model'} has none; "
                "start from a checkpoint that has one, or pre-train from a config"
            )

    def _check_token(self, tokenizer: Any, need: str) -> None:
        name = _tokenizer_name(tokenizer)
        if need == "sentinels":
            if _count_sentinels(tokenizer) < 2:
                raise WorkbenchError(
                    f"{self.name} needs sentinel tokens (<extra_id_0>, <extra_id_1>, ...) and {name} has none; "
                    "use a T5-style tokenizer"
                )
            return
        if getattr(tokenizer, need, None) is None or getattr(tokenizer, need + "_id", None) is None:
            what = need.replace("_token", "")
            raise WorkbenchError(f"{self.name} needs a {what} token, and the tokenizer of {name} has none")

    # -- the objective ------------------------------------------------------------
    def build_heads(self, config: Any, model_config: Any) -> dict[str, Any]:
        """Extra trainable modules (``torch.nn.Module``) the loss uses; none by default."""
        return {}

    def make_batch(
        self,
        token_ids: list[list[int]],
        tokenizer: Any,
        rng: np.random.Generator,
        config: Any,
        *,
        example_ids: Sequence[int] | None = None,
    ) -> Batch:
        """Corrupt (or not) each example and pad them into a ``Batch``.

        ``token_ids`` are as the tokenizer produced them, special tokens
        included; special tokens are never corrupted. ``example_ids`` are the
        examples' indices in their data set (default 0..n-1), used by static
        corruption (``example_rng``).
        """
        raise NotImplementedError

    def auxiliary_models(self, config: Any) -> dict[str, str]:
        """Models the loss needs besides the one being trained, as {name: model spec}; none by default.

        The host loads each one frozen (``freeze_auxiliary``: eval mode, no
        gradients, never in the optimizer) and passes them to ``loss`` in
        ``context.aux``. A distillation teacher is one.
        """
        return {}

    def check_aux(self, aux: dict[str, Any], model: Any, config: Any = None) -> None:
        """Raise ``WorkbenchError`` when the loaded auxiliary models cannot serve with ``model``; no check by default."""

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        """The scalar loss tensor of a forward pass on ``batch``, and metrics to log.

        ``context`` carries the objective's config, its heads (``build_heads``)
        and its frozen auxiliary models (``auxiliary_models``).
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<objective {self.name or type(self).__name__}>"


def freeze_auxiliary(model: Any) -> Any:
    """An auxiliary model made frozen: eval mode (no dropout) and no parameter requires a gradient."""
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def example_ids_for(token_ids: Sequence[Any], example_ids: Sequence[int] | None) -> list[int]:
    """``example_ids`` checked against the batch, or 0..n-1."""
    if example_ids is None:
        return list(range(len(token_ids)))
    ids = [int(i) for i in example_ids]
    if len(ids) != len(token_ids):
        raise ValueError(f"{len(ids)} example ids for {len(token_ids)} examples")
    return ids


def require_examples(token_ids: Sequence[Any], objective: str) -> None:
    if not len(token_ids):
        raise WorkbenchError(f"{objective}: a batch needs at least one example")
    for i, ids in enumerate(token_ids):
        if len(ids) == 0:
            raise WorkbenchError(f"{objective}: example {i} has no tokens")


__all__ = ["API_VERSION", "BILM", "HEADS", "TOKENS", "Family", "LossContext", "Objective", "Requirements",
           "example_ids_for", "freeze_auxiliary", "require_examples"]

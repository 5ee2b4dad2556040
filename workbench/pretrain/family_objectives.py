"""Which family takes which objective: the one table the Pre-train form and ``lm-workbench pretrain`` share.

An objective fits a family when its plugin lists the family's engine family (or lists none) and the
tokenizer trained for the family (``lm_workbench.engine.pretrain.tokenizer_training``) has every token the objective
asks for. Torch-free: the form imports it on the Qt thread, the CLI before anything heavy.
"""

from __future__ import annotations

from typing import Iterable

from lm_workbench.engine.wording import with_article
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.pretrain.names import FAMILIES  # noqa: F401  (the families this table covers)
# The engine family each one is (lm_workbench.engine.pretrain.architectures.ENGINE_FAMILY).
ENGINE_FAMILY = {"bert": Family.ENCODER.value, "gpt2": Family.DECODER.value, "bart": Family.ENCODER_DECODER.value,
                 "t5": Family.ENCODER_DECODER.value, "elmo": Family.BILM.value}
# The tokens each family's trained tokenizer has (lm_workbench.engine.objectives.api.TOKENS names).
FAMILY_TOKENS = {
    "bert": frozenset({"mask_token", "cls_token", "sep_token", "pad_token"}),
    "gpt2": frozenset({"bos_token", "eos_token", "pad_token"}),
    "bart": frozenset({"mask_token", "bos_token", "eos_token", "pad_token", "cls_token", "sep_token"}),
    "t5": frozenset({"sentinels", "eos_token", "pad_token"}),
    "elmo": frozenset({"bos_token", "eos_token", "pad_token"}),
}
PREFERRED_OBJECTIVE = {"bert": "mlm", "gpt2": "clm", "bart": "bart", "t5": "t5-span", "elmo": "bilm"}


def fits_family(family: str, objective_families: Iterable[str]) -> bool:
    """Whether an objective whose plugin lists ``objective_families`` (empty: any) is for ``family``'s models."""
    allowed = {str(getattr(f, "value", f)) for f in objective_families}
    return not allowed or ENGINE_FAMILY.get(family, "") in allowed


def missing_tokens(family: str, tokens: Iterable[str]) -> list[str]:
    """The tokens asked for that ``family``'s trained tokenizer does not have."""
    have = FAMILY_TOKENS.get(family, frozenset())
    return [t for t in tokens if t not in have]


def objective_misfit(family: str, objective: str, objective_families: Iterable[str], tokens: Iterable[str]) -> str:
    """Why ``family`` cannot take ``objective`` (its plugin's families and the tokens it needs); "" when it can."""
    if not fits_family(family, objective_families):
        allowed = sorted(str(getattr(f, "value", f)) for f in objective_families)
        kind = with_article(ENGINE_FAMILY.get(family))
        return f"{objective} is for {' or '.join(allowed)} models; {with_article(family)} model is {kind}"
    missing = missing_tokens(family, tokens)
    if missing:
        return f"{objective} needs {', '.join(missing)}, which {with_article(family)} tokenizer does not have"
    return ""

"""Which speed levers the losses may use right now, and which of them actually ran.

The training loop switches the loss-side levers on for its steps
(``with loss_levers(LossLevers(chunked_loss=True, sparse_mlm_head=True), ran)``,
from ``TrainingConfig``); outside such a block every objective computes its loss
the plain way (full logits), so a preview, a test or a script that calls
``objective.loss`` directly gets the reference computation. A lever that is on
but does not apply to a model (an architecture ``lm_heads`` does not know) is
skipped quietly and simply not recorded in ``ran``: the run then reports it as
not used.

- ``chunked_loss``: the causal-LM head and its cross-entropy in chunks of rows
  (``lm_workbench.engine.objectives.chunked_ce``): no [batch, length, vocab] logits tensor.
- ``sparse_mlm_head``: masked-LM objectives run the vocabulary head only at the
  labelled positions (``lm_workbench.engine.objectives.lm_heads``).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

LEVER_NAMES = ("chunked_loss", "sparse_mlm_head")


@dataclass(frozen=True)
class LossLevers:
    chunked_loss: bool = False
    sparse_mlm_head: bool = False
    chunk_rows: int = 0  # rows of logits per chunk; 0: chosen from the vocabulary size (about 4 MB a chunk)


_LEVERS: ContextVar[LossLevers] = ContextVar("loss_levers", default=LossLevers())
_RAN: ContextVar[set | None] = ContextVar("loss_levers_ran", default=None)


@contextlib.contextmanager
def loss_levers(levers: LossLevers, ran: set[str] | None = None) -> Iterator[None]:
    """Let the losses inside the block use ``levers``; the names of those that ran are added to ``ran``."""
    token, token_ran = _LEVERS.set(levers), _RAN.set(ran)
    try:
        yield
    finally:
        _LEVERS.reset(token)
        _RAN.reset(token_ran)


def current_levers() -> LossLevers:
    return _LEVERS.get()


def note_lever(name: str) -> None:
    """Record that lever ``name`` computed a loss in the current block."""
    ran = _RAN.get()
    if ran is not None:
        ran.add(name)


__all__ = ["LEVER_NAMES", "LossLevers", "current_levers", "loss_levers", "note_lever"]

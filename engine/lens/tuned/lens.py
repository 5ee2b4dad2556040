"""Reading a text through the logit lens and the tuned lens, and how far each layer is from the output.

``kl_per_layer(loaded, hidden)``: for hidden states [L+1, T, H], the mean over positions of
``KL(p_L || p_l) = sum_v p_L(v) (log p_L(v) - log p_l(v))``, where ``p_l`` is entry ``l`` read through the
output head (``lm_workbench.engine.lens.logit.lens_readout``: the final norm, then the head) and ``p_L`` the model's own
output distribution; the last entry is 0 by construction. Translating the hidden states first
(``Translators.translate_stack``) gives the tuned lens's KL. Computed ``POSITIONS_PER_CHUNK`` positions at a
time; the logits in the model's precision, the softmax and the KL in float64.

``read_both(loaded, text, translators)``: one forward pass, both lenses' top-k tables and both KL curves
(the tuned ones None without translators): what the Lens view and ``lm-workbench lens --tuned`` show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.lens.logit import POSITIONS_PER_CHUNK, LensTable, lens_input, lens_readout, lens_table
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.lens.tuned.translators import Translators


def check_tunable(loaded: Any) -> None:
    """Raise ``WorkbenchError`` unless a tuned lens can be trained and read for ``loaded`` (a decoder or a
    masked LM with its head)."""
    family, info = loaded.family, loaded.info
    if family is Family.BILM:
        raise WorkbenchError("the tuned lens is not available for ELMo: it has no output head to read layers through")
    if family is Family.ENCODER_DECODER:
        raise WorkbenchError(f"the tuned lens is for decoders and masked LMs; {info.spec} is an encoder-decoder")
    has_head = info.has_mlm_head if family is Family.ENCODER else info.has_lm_head
    if not has_head:
        head = "an MLM head" if family is Family.ENCODER else "an LM head"
        raise WorkbenchError(f"the tuned lens needs {head}, and the checkpoint of {info.spec} has none")


def translators_for(loaded: Any) -> Translators:
    """Fresh (identity) translators for every hidden state of ``loaded`` but the last, on its device."""
    check_tunable(loaded)
    device = next(loaded.model.parameters()).device
    return Translators(int(loaded.info.layers), int(loaded.info.hidden_size)).to(device)


def _log_probs(readout: Any, i: int, h: torch.Tensor) -> torch.Tensor:
    """float64 log-probabilities: a KL near 0 is a difference of nearly equal numbers, which float32 blurs."""
    return torch.log_softmax(readout(i, h).double(), dim=-1)


def kl_per_layer(loaded: Any, hidden: torch.Tensor, chunk: int | None = None) -> np.ndarray:
    """[L+1] float64: the mean over the T positions of KL(p_L || p_l) for each entry l of ``hidden`` [L+1, T, H]."""
    chunk = chunk or POSITIONS_PER_CHUNK
    n, tokens = int(hidden.shape[0]), int(hidden.shape[1])
    readout = lens_readout(loaded, n)
    sums = np.zeros(n, dtype=np.float64)
    if tokens == 0:
        return sums
    with torch.inference_mode():
        for start in range(0, tokens, chunk):
            target = _log_probs(readout, n - 1, hidden[n - 1, start:start + chunk])
            p = target.exp()
            for i in range(n - 1):
                kl = (p * (target - _log_probs(readout, i, hidden[i, start:start + chunk]))).sum(-1)
                sums[i] += float(kl.sum())
    return sums / tokens


@dataclass
class BothLenses:
    logit: LensTable
    tuned: LensTable | None  # None without translators
    kl_logit: list[float]  # [L+1] mean KL(p_L || p_l) over the text's positions
    kl_tuned: list[float] | None

    def to_dict(self) -> dict[str, Any]:
        return {"kl_logit": self.kl_logit, "kl_tuned": self.kl_tuned,
                "tuned": self.tuned.to_dict() if self.tuned is not None else None}


def read_both(loaded: Any, text: str, translators: Translators | None, *, target: str | None = None, k: int = 1,
              positions: int | None = None, tokenized: Any = None) -> BothLenses:
    """Both lenses on ``text``: tables (the first ``positions``) and KL curves (every position); ``tokenized``:
    the encoding already made of ``text`` (the window's), so it is not tokenized again."""
    read = lens_input(loaded, text, target=target, tokenized=tokenized)
    logit = lens_table(loaded, read, k=k, positions=positions)
    kl_logit = kl_per_layer(loaded, read.hidden).tolist()
    if translators is None:
        return BothLenses(logit, None, kl_logit, None)
    check_tunable(loaded)
    translators = translators.to(read.hidden.device)
    with torch.inference_mode():
        translated = translators.translate_stack(read.hidden)
    tuned = lens_table(loaded, read, k=k, positions=positions, translate=translators.translate_stack)
    return BothLenses(logit, tuned, kl_logit, kl_per_layer(loaded, translated).tolist())

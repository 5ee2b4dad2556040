"""One affine translator per layer: ``T_l(h) = h + W_l h + b_l``, the identity while ``W_l = 0, b_l = 0``.

Belrose et al. (2023) write the translator in this residual form and start it at the identity, so an
untrained tuned lens is exactly the logit lens. There is one translator for each hidden state but the
last (``hidden_states[0..L-1]``: the embeddings and layers 1..L-1); the last is the model's own output.

Saved as a folder: ``translators.safetensors`` (``weight`` [L, H, H], ``bias`` [L, H], float32) and
``tuned_lens.json`` (what model they belong to, and what the training measured). Never pickle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError

WEIGHTS_FILE = "translators.safetensors"
META_FILE = "tuned_lens.json"
FORMAT_VERSION = 1


class Translators(nn.Module):
    """``count`` translators of width ``hidden``; ``translate(i, h)`` applies the ``i``-th to ``h`` [..., H]."""

    def __init__(self, count: int, hidden: int) -> None:
        super().__init__()
        if count < 1 or hidden < 1:
            raise WorkbenchError(f"a tuned lens needs at least one layer and width, not {count} x {hidden}")
        self.weight = nn.Parameter(torch.zeros(count, hidden, hidden))
        self.bias = nn.Parameter(torch.zeros(count, hidden))

    @property
    def count(self) -> int:
        return int(self.weight.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.weight.shape[1])

    def translate(self, i: int, h: torch.Tensor) -> torch.Tensor:
        """``h + h W_i^T + b_i`` in float32 (whatever ``h``'s precision)."""
        x = h.float()
        return x + x @ self.weight[i].T + self.bias[i]

    def forward(self, i: int, h: torch.Tensor) -> torch.Tensor:  # noqa: D401 - nn.Module's call
        return self.translate(i, h)

    def translate_stack(self, hidden: torch.Tensor) -> torch.Tensor:
        """[count+1, T, H] hidden states -> the same with entries 0..count-1 translated (the last as it is),
        in ``hidden``'s dtype."""
        if hidden.shape[0] != self.count + 1 or hidden.shape[-1] != self.hidden:
            raise WorkbenchError(f"these translators are for {self.count + 1} hidden states of width {self.hidden}, "
                                 f"not {hidden.shape[0]} of width {hidden.shape[-1]}")
        rows = [self.translate(i, hidden[i]).to(hidden.dtype) for i in range(self.count)]
        return torch.stack(rows + [hidden[-1]])


def save_translators(translators: Translators, folder: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``folder/translators.safetensors`` and ``folder/tuned_lens.json`` (``meta`` plus the shape)."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({"weight": translators.weight.detach().float().cpu().contiguous(),
               "bias": translators.bias.detach().float().cpu().contiguous()}, str(folder / WEIGHTS_FILE))
    data = {"format": FORMAT_VERSION, "count": translators.count, "hidden_size": translators.hidden, **meta}
    (folder / META_FILE).write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    return folder


def has_translators(folder: str | Path) -> bool:
    folder = Path(folder)
    return (folder / WEIGHTS_FILE).is_file() and (folder / META_FILE).is_file()


def read_meta(folder: str | Path) -> dict[str, Any]:
    """The folder's ``tuned_lens.json``; ``WorkbenchError`` when it is not a tuned-lens folder."""
    file = Path(folder) / META_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkbenchError(f"{folder} holds no tuned lens ({META_FILE} is missing)") from None
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {file}: {exc}") from None
    if data.get("format") != FORMAT_VERSION:
        raise WorkbenchError(f"{file} has format {data.get('format')!r}; this version reads {FORMAT_VERSION}")
    return data


def load_translators(folder: str | Path, *, count: int | None = None, hidden: int | None = None) -> Translators:
    """The translators saved in ``folder``; ``count`` / ``hidden`` (the model's) are checked when given."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    read_meta(folder)
    try:
        tensors = load_file(str(Path(folder) / WEIGHTS_FILE))
    except (OSError, SafetensorError) as exc:
        raise WorkbenchError(f"cannot read {Path(folder) / WEIGHTS_FILE}: {exc}") from None
    weight, bias = tensors.get("weight"), tensors.get("bias")
    if weight is None or bias is None or weight.ndim != 3 or bias.shape != weight.shape[:2]:
        raise WorkbenchError(f"{Path(folder) / WEIGHTS_FILE} is not a tuned lens (weight [L, H, H], bias [L, H])")
    if (count is not None and weight.shape[0] != count) or (hidden is not None and weight.shape[1] != hidden):
        raise WorkbenchError(f"the tuned lens in {folder} is for {weight.shape[0]} layers of width {weight.shape[1]}, "
                             f"this model has {count} of width {hidden}: train one for this model")
    out = Translators(int(weight.shape[0]), int(weight.shape[1]))
    with torch.no_grad():
        out.weight.copy_(weight)
        out.bias.copy_(bias)
    return out

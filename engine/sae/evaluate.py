"""An SAE evaluated as SAELens's evaluation reports it, over a corpus (docs/sae-and-steering.md):

- ``l0``: mean over tokens of the number of features > 0;
- ``mse``: mean over tokens and dimensions of (x - x̂)²;
- ``explained_variance``: 1 - Σ‖x - x̂‖² / Σ‖x - x̄‖² over all tokens (x̄ the mean activation);
- ``ce_loss_recovered``: (CE_zero - CE_spliced) / (CE_zero - CE_clean), CE the model's cross-entropy (nats/token)
  clean, with the SAE's reconstruction spliced in at the site, and with the site zero-ablated. Decoders: the
  next-token loss; encoders with an MLM head: the masked-LM loss on masked positions (15% of the non-special
  tokens, seed 0, replaced by the mask token); encoder-decoders: the decoder's loss on the text as its labels.
  A model with no LM or MLM head: ``null`` and "not defined (no LM head)";
- ``kl``: mean over the loss's positions of KL(p_clean ‖ p_spliced), nats;
- ``dead_fraction``: features active on no evaluated token; ``dense_fraction``: features active on more than
  ``DENSE`` of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Generator

import torch
import torch.nn.functional as F

from lm_workbench.engine.maths.undefined import add
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress
from lm_workbench.engine.sae.activations import DEFAULT_CONTEXT, encode

DENSE = 0.1
MASK_RATE = 0.15
KEYS = ("l0", "explained_variance", "mse", "ce_loss_recovered", "kl", "dead_fraction", "dense_fraction")


@dataclass
class SaeEvaluation:
    l0: float
    explained_variance: float | None
    mse: float
    ce_loss_recovered: float | None
    kl: float | None
    dead_fraction: float
    dense_fraction: float
    ce_clean: float | None = None
    ce_spliced: float | None = None
    ce_zero: float | None = None
    tokens: int = 0
    loss: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def has_head(loaded: Any) -> bool:
    return bool(loaded.info.has_lm_head or loaded.info.has_mlm_head)


def masked(loaded: Any, batch: dict[str, torch.Tensor], seed: int) -> dict[str, torch.Tensor]:
    """An encoder's inputs with 15% of the non-special tokens (at least one per text) replaced by the mask
    token, and ``labels`` the original ids there (-100 elsewhere)."""
    tok = loaded.tokenizer
    ids = batch["input_ids"]
    special = torch.tensor([[t in tok.all_special_ids for t in row] for row in ids.tolist()], device=ids.device)
    candidates = (batch["attention_mask"].bool()) & ~special
    gen = torch.Generator().manual_seed(seed)
    pick = (torch.rand(ids.shape, generator=gen) < MASK_RATE).to(ids.device) & candidates
    for row in range(len(ids)):  # at least one masked token per text that has any
        if not pick[row].any() and candidates[row].any():
            pick[row, int(candidates[row].nonzero()[0])] = True
    labels = torch.where(pick, ids, torch.full_like(ids, -100))
    return {**batch, "input_ids": ids.masked_fill(pick, tok.mask_token_id), "labels": labels}


def loss_positions(loaded: Any, batch: dict[str, torch.Tensor], logits: torch.Tensor
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits [n, vocab], target ids [n]) at the positions the loss reads (see the module docstring)."""
    if loaded.family is Family.DECODER:
        ids, mask = batch["input_ids"][:, 1:], batch["attention_mask"][:, 1:].bool()
        return logits[:, :-1][mask], ids[mask]
    labels = batch["labels"]
    keep = labels != -100
    return logits[keep], labels[keep]


def loss_kind(loaded: Any) -> str:
    if loaded.family is Family.DECODER:
        return "next-token cross-entropy"
    if loaded.family is Family.ENCODER:
        return "masked-LM cross-entropy on masked positions (15% of non-special tokens, seed 0)"
    return "decoder cross-entropy with the text as labels"


def evaluate_sae(loaded: Any, site: Any, sae: Any, lines: list[str], *, max_tokens: int = 4096,
                 chunk_texts: int = 8, context: int = DEFAULT_CONTEXT, cancel: Any = NEVER_CANCELLED
                 ) -> Generator[Progress, None, SaeEvaluation]:
    """Evaluate ``sae`` at ``site`` (a ``HookSite``) over ``lines`` until ≈``max_tokens`` tokens were read."""
    head = has_head(loaded) and (loaded.family is not Family.ENCODER or loaded.tokenizer.mask_token_id is not None)
    sae = sae.float().eval()
    n = 0
    sq_err = x_sum = x_sq = 0.0
    x_mean_sum: torch.Tensor | None = None
    l0_sum = 0.0
    active = torch.zeros(sae.d_sae)
    ce = {"clean": 0.0, "spliced": 0.0, "zero": 0.0}
    kl_sum, loss_n = 0.0, 0
    line = 0
    while n < max_tokens and line < len(lines):
        cancel.check()
        texts = lines[line:line + chunk_texts]
        batch = encode(loaded, texts, context)
        if head and loaded.family is Family.ENCODER:
            batch = masked(loaded, batch, seed=line)
        line += len(texts)
        with torch.no_grad():
            with site.keep() as kept:
                clean = loaded.model(**batch).logits if head else loaded.model(**batch)
            x = kept[0].float()
            mask = batch["attention_mask"].bool()
            rows = x[mask]
            f = sae.encode(rows)
            rec = sae.decode(f)
            n += len(rows)
            sq_err += float((rows - rec).pow(2).sum())
            x_sq += float(rows.pow(2).sum())
            x_mean_sum = rows.sum(0) if x_mean_sum is None else x_mean_sum + rows.sum(0)
            act = (f > 0).float()
            l0_sum += float(act.sum())
            active += act.sum(0).cpu()
            if head:
                with site.replace(lambda a: sae(a.float()).to(a.dtype)):
                    spliced = loaded.model(**batch).logits
                with site.replace(torch.zeros_like):
                    zero = loaded.model(**batch).logits
                lc, target = loss_positions(loaded, batch, clean.float())
                ls, _ = loss_positions(loaded, batch, spliced.float())
                lz, _ = loss_positions(loaded, batch, zero.float())
                ce["clean"] += float(F.cross_entropy(lc, target, reduction="sum"))
                ce["spliced"] += float(F.cross_entropy(ls, target, reduction="sum"))
                ce["zero"] += float(F.cross_entropy(lz, target, reduction="sum"))
                kl_sum += float(F.kl_div(ls.log_softmax(-1), lc.log_softmax(-1), log_target=True, reduction="sum"))
                loss_n += len(target)
        yield Progress(min(n, max_tokens), max_tokens, f"evaluated {n} tokens")
    notes: list[str] = []
    d = sae.d_in
    mean = x_mean_sum / max(n, 1) if x_mean_sum is not None else torch.zeros(d)
    total_var = x_sq - n * float(mean.pow(2).sum())
    ev = 1.0 - sq_err / total_var if total_var > 0 else None
    if ev is None:
        add(notes, "explained_variance", "the activations do not vary")
    density = active / max(n, 1)
    out = SaeEvaluation(l0=l0_sum / max(n, 1), explained_variance=ev, mse=sq_err / max(n * d, 1),
                        ce_loss_recovered=None, kl=None, dead_fraction=float((active == 0).float().mean()),
                        dense_fraction=float((density > DENSE).float().mean()), tokens=n, notes=notes,
                        loss=loss_kind(loaded) if head else "")
    if not head:
        for key in ("ce_loss_recovered", "kl"):
            add(notes, key, "no LM head")
        return out
    out.ce_clean, out.ce_spliced, out.ce_zero = (ce[k] / max(loss_n, 1) for k in ("clean", "spliced", "zero"))
    out.kl = kl_sum / max(loss_n, 1)
    gap = out.ce_zero - out.ce_clean
    if loss_n == 0 or abs(gap) < 1e-9:
        add(notes, "ce_loss_recovered", "zero-ablating the site does not change the loss")
    else:
        out.ce_loss_recovered = (out.ce_zero - out.ce_spliced) / gap
    if loaded.family is Family.ENCODER:
        notes.append(f"CE loss is the {out.loss}")
    return out

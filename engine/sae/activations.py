"""A hook point's activations streamed from a corpus: forwards in chunks of texts, tokens gathered in a buffer of
at most ``buffer_tokens`` rows [buffer_tokens, d] (float32: ``buffer_tokens · d · 4`` bytes, in memory, nothing
on disk), shuffled, handed out in training batches; memory is bounded by the buffer, not by the corpus.

Which tokens: every non-padding token of the stack the hook point is in (special tokens included, as SAELens's
default keeps BOS). An encoder-decoder runs with the text as the encoder's input and as the decoder's labels (the
decoder reads the text shifted right), so its ``decoder.`` points see the text's tokens too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family

DEFAULT_CONTEXT = 64


def read_corpus(path: str | Path) -> list[str]:
    """The non-empty lines of a UTF-8 text file (the one checked reader, ``lm_workbench.engine.text_input``); a
    one-line error for a missing, empty or not-text file."""
    from lm_workbench.engine.text_input import read_text_file

    file = Path(path)
    if not file.is_file():
        raise WorkbenchError(f"corpus not found: {file}")
    lines = [line.strip() for line in read_text_file(file).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise WorkbenchError(f"corpus {file} has no text")
    return lines


def encode(loaded: Any, texts: list[str], context: int = DEFAULT_CONTEXT) -> dict[str, torch.Tensor]:
    """The model's inputs for ``texts`` (truncated to ``context`` tokens, padded on the right), on its device; an
    encoder-decoder's also carry ``labels`` (the text; padding -100) so its decoder runs on the text."""
    tok = loaded.tokenizer
    rows = tok(list(texts), truncation=True, max_length=context)["input_ids"]  # padded here: the tokenizer of a
    width = max(1, max(len(r) for r in rows))  # decoder may have no pad token, and is not changed
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows], dtype=torch.long)
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows], dtype=torch.long)
    device = loaded.device.torch_device
    batch = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
    if loaded.family is Family.ENCODER_DECODER:
        batch["labels"] = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    return batch


class _Stop(Exception):
    """Raised by a hook once the site's value is kept: the rest of the forward pass is not needed."""


def _stop(_module: Any, _args: Any, _output: Any) -> None:
    raise _Stop()


@torch.no_grad()
def site_activations(loaded: Any, site: Any, texts: list[str], context: int = DEFAULT_CONTEXT, *, stop: bool = True
                     ) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """One forward of ``texts`` with ``site`` (a ``HookSite``) kept: (activations [B, T, d] float32, the token
    mask [B, T] bool, the inputs). With ``stop`` the forward pass ends at the site's module (the blocks after it
    do not run)."""
    batch = encode(loaded, texts, context)
    with site.keep() as kept:
        handle = site.module.register_forward_hook(_stop) if stop else None
        try:
            loaded.model(**batch)
        except _Stop:
            pass  # the site was reached: the layers after it need not run
        finally:
            if handle is not None:
                handle.remove()
    if not kept:
        raise WorkbenchError(f"the forward pass never reached {site.name}")
    acts = kept[0].float()
    mask = batch["attention_mask"].bool()
    if acts.dim() != 3 or acts.shape[:2] != mask.shape:
        raise WorkbenchError(f"{site.name} holds {tuple(acts.shape)}, not [batch, tokens, width]: an SAE needs a "
                             "per-token site (resid, attn_out, mlp_out, hook_z)")
    return acts, mask, batch


@dataclass
class StreamState:
    """Where the stream is: ``line`` the next corpus line, ``epoch`` full passes done, ``tokens`` handed out."""

    line: int = 0
    epoch: int = 0
    tokens: int = 0


class ActivationStream:
    """Training batches [batch, d] of ``site``'s activations over ``lines``, through a shuffled buffer of at most
    ``buffer_tokens`` rows; the corpus is read again from its start when it runs out (``state.epoch``)."""

    def __init__(self, loaded: Any, site: Any, lines: list[str], *, buffer_tokens: int, batch: int,
                 chunk_texts: int = 8, context: int = DEFAULT_CONTEXT, seed: int = 0,
                 scale: float = 1.0, state: StreamState | None = None) -> None:
        if buffer_tokens < batch:
            raise WorkbenchError(f"the buffer ({buffer_tokens} tokens) must hold a batch ({batch})")
        self.loaded, self.site, self.lines = loaded, site, lines
        self.buffer_tokens, self.batch, self.chunk_texts, self.context = buffer_tokens, batch, chunk_texts, context
        self.scale = scale
        self.state = state or StreamState()
        self.generator = torch.Generator().manual_seed(seed + 7919 * self.state.epoch + self.state.line)
        self.buffer: torch.Tensor | None = None
        self.peak_rows = 0

    def _chunk(self) -> torch.Tensor:
        s = self.state
        if s.line >= len(self.lines):
            s.line, s.epoch = 0, s.epoch + 1
        texts = self.lines[s.line:s.line + self.chunk_texts]
        s.line += len(texts)
        acts, mask, _ = site_activations(self.loaded, self.site, texts, self.context)
        return acts[mask].cpu() * self.scale

    def _fill(self) -> None:
        parts = [] if self.buffer is None else [self.buffer]
        rows = 0 if self.buffer is None else len(self.buffer)
        while rows < self.buffer_tokens:
            part = self._chunk()
            parts.append(part)
            rows += len(part)
        buffer = torch.cat(parts)[: self.buffer_tokens]  # bounded: what does not fit is dropped
        self.buffer = buffer[torch.randperm(len(buffer), generator=self.generator)]
        self.peak_rows = max(self.peak_rows, len(self.buffer))

    def __iter__(self) -> Iterator[torch.Tensor]:
        return self

    def __next__(self) -> torch.Tensor:
        """The next batch [batch, d]: the buffer is refilled when half of it has been handed out."""
        if self.buffer is None or len(self.buffer) < self.buffer_tokens // 2 or len(self.buffer) < self.batch:
            self._fill()
        out, self.buffer = self.buffer[: self.batch], self.buffer[self.batch:]
        self.state.tokens += len(out)
        return out


def corpus_token_count(loaded: Any, lines: list[str], context: int = DEFAULT_CONTEXT) -> int:
    """How many tokens the stream reads in one pass over ``lines`` (the tokenizer alone, no forward)."""
    tok = loaded.tokenizer
    return sum(len(tok(line, truncation=True, max_length=context)["input_ids"]) for line in lines)


@torch.no_grad()
def mean_norm(loaded: Any, site: Any, lines: list[str], *, tokens: int = 2000, context: int = DEFAULT_CONTEXT
              ) -> float:
    """The mean L2 norm of ``site``'s activations over the first ≈``tokens`` tokens of ``lines``."""
    total, count, line = 0.0, 0, 0
    while count < tokens and line < len(lines):
        acts, mask, _ = site_activations(loaded, site, lines[line:line + 8], context)
        line += 8
        rows = acts[mask]
        total += float(rows.norm(dim=-1).sum())
        count += len(rows)
    if count == 0 or total == 0.0:
        raise WorkbenchError(f"{site.name} gave no activations (or only zeros) on the corpus")
    return total / count

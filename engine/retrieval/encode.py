"""Passages to unit vectors: the model's last hidden layer, pooled (``lm_workbench.engine.sentence.pooling``: mean /
CLS / max, or the model's own declared pooling), L2-normalised, float32.

One ``PassageEncoder`` per (model, pooling). ``encode(texts)`` tokenizes the texts at once with the fast
tokenizer, sorts them by token count so a batch pads little (sentence-transformers sorts by characters), and
runs the bare transformer (no MLM or LM head: its vocabulary projection is most of a small model's work) in
``torch.inference_mode``, pooling on the device. A passage longer than the window is cut to it and counted.

The window: the model's positions, or the tokenizer's ``model_max_length`` when smaller, or a
sentence-transformers folder's ``max_seq_length`` (all-MiniLM-L6-v2: 256, what it was trained at) when its
own pooling is used. Encoder-decoders use their encoder; decoders pool their (left-to-right) states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.retrieval.names import POOLINGS
from lm_workbench.engine.sentence.model_pooling import resolve_pooling
BATCH_SIZE = 32
MAX_BATCH_TOKENS = 16384  # a batch of short passages may hold more than BATCH_SIZE of them


def resolve_mode(pooling: str, model_folder: str | Path | None) -> str:
    """The pooling mode for a choice of ``POOLINGS``: a mode as it is; "model" reads the folder's declaration
    (``lm_workbench.engine.sentence.model_pooling``: a sentence-transformers Pooling, or a run's ``finetune.json``)."""
    return resolve_pooling(pooling, model_folder, POOLINGS)[0]


def st_max_seq_length(folder: str | Path | None) -> int | None:
    """A sentence-transformers folder's ``max_seq_length`` (sentence_bert_config.json), or None."""
    if folder is None:
        return None
    path = Path(folder) / "sentence_bert_config.json"
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("max_seq_length")
    except (OSError, ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, (int, float)) and value > 0 else None


def model_window(loaded: Any, pooling: str) -> int:
    """How many tokens (specials included) one passage may have."""
    candidates = [loaded.info.max_positions or 512]
    tok_max = getattr(loaded.tokenizer, "model_max_length", None)
    if isinstance(tok_max, int) and 0 < tok_max < 1_000_000:
        candidates.append(tok_max)
    if pooling == "model":
        st = st_max_seq_length(getattr(loaded.info, "folder", None))
        if st:
            candidates.append(st)
    return int(min(candidates))


def _transformer(loaded: Any) -> Any:
    from lm_workbench.engine.models.families import Family

    if loaded.family is Family.BILM:
        raise WorkbenchError("retrieval encodes passages with a transformer; an ELMo is not supported here")
    if loaded.family is Family.ENCODER_DECODER:
        return loaded.model.get_encoder()
    return loaded.base_model


class PassageEncoder:
    """Encodes passages with one model and pooling; ``truncated`` counts passages cut to the window."""

    def __init__(self, loaded: Any, pooling: str = "mean", *, batch_size: int = BATCH_SIZE,
                 max_batch_tokens: int = MAX_BATCH_TOKENS):
        self.loaded = loaded
        self.pooling = pooling
        self.mode = resolve_mode(pooling, getattr(loaded.info, "folder", None))
        self.window = model_window(loaded, pooling)
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.module = _transformer(loaded)
        tok = loaded.tokenizer
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.dim = int(loaded.info.hidden_size)

    def tokenize(self, texts: Sequence[str]) -> tuple[list[list[int]], int]:
        """Token ids per text, cut to the window; and how many were cut."""
        tok = self.loaded.tokenizer
        ids = tok(list(texts), add_special_tokens=True, truncation=True, max_length=self.window + 1,
                  return_attention_mask=False, return_token_type_ids=False)["input_ids"]
        long = [i for i, row in enumerate(ids) if len(row) > self.window]
        if long:  # cut again at the window, so the model's end token stays in place
            again = tok([texts[i] for i in long], add_special_tokens=True, truncation=True, max_length=self.window,
                        return_attention_mask=False, return_token_type_ids=False)["input_ids"]
            for i, row in zip(long, again):
                ids[i] = row
        return ids, len(long)

    def batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices grouped into batches of similar length, longest first."""
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        out: list[list[int]] = []
        current: list[int] = []
        for i in order:
            width = lengths[current[0]] if current else lengths[i]
            if current and (len(current) >= self.batch_size or width * (len(current) + 1) > self.max_batch_tokens):
                out.append(current)
                current = []
            current.append(i)
        if current:
            out.append(current)
        return out

    def encode(self, texts: Sequence[str], cancel: Any = None) -> tuple[np.ndarray, int]:
        """[n, H] float32 unit vectors in the texts' order, and how many texts were cut to the window."""
        steps = self.encode_steps(texts, cancel)
        while True:
            try:
                next(steps)
            except StopIteration as stop:
                return stop.value

    def encode_steps(self, texts: Sequence[str], cancel: Any = None
                     ) -> Generator[int, None, tuple[np.ndarray, int]]:
        """``encode`` as a generator: yields how many texts are encoded after each batch (cancel is checked
        before each batch) and returns (vectors, truncated)."""
        import torch

        from lm_workbench.engine.sentence.pooling import pool

        ids, truncated = self.tokenize(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        device = self.loaded.device.torch_device
        done = 0
        for batch in self.batches([len(r) for r in ids]):
            if cancel is not None:
                cancel.check()
            width = max(len(ids[i]) for i in batch)
            input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, :len(ids[i])] = torch.tensor(ids[i], dtype=torch.long)
                mask[row, :len(ids[i])] = 1
            with torch.inference_mode():
                input_ids, mask = input_ids.to(device), mask.to(device)
                hidden = self.module(input_ids=input_ids, attention_mask=mask).last_hidden_state.float()
                pooled = torch.nn.functional.normalize(pool(hidden, mask, self.mode), p=2, dim=1)
                out[batch] = pooled.cpu().numpy()
            done += len(batch)
            yield done
        return out, truncated


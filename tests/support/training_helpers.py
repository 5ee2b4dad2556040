"""Shared pieces of the training-loop tests: a tiny GPT-2 and a learnable synthetic next-token task.

The data: sequence i starts at a seeded random token and each next token is
``(previous + STRIDE) % VOCAB``, so a causal LM can learn it to near-zero
loss; every sequence has the same length (no padding), which makes a batch
of 16 exactly the mean of two batches of 8.
"""

from __future__ import annotations

import numpy as np
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.training.task import TrainingTask

VOCAB = 200
STRIDE = 7
SEQ_LEN = 16


def tiny_gpt2(seed: int = 0, dropout: float = 0.1) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=VOCAB, n_positions=SEQ_LEN,
                        resid_pdrop=dropout, embd_pdrop=dropout, attn_pdrop=dropout,
                        bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config)


def synthetic_sequences(n: int, seed: int = 1) -> np.ndarray:
    """[n, SEQ_LEN] int64 token ids following the stride rule."""
    starts = np.random.default_rng(seed).integers(0, VOCAB, size=n)
    return (starts[:, None] + STRIDE * np.arange(SEQ_LEN)[None, :]) % VOCAB


def batch_of(rows: np.ndarray) -> Batch:
    ids = torch.from_numpy(np.ascontiguousarray(rows, dtype=np.int64))
    return Batch(inputs={"input_ids": ids, "attention_mask": torch.ones_like(ids)}, labels=ids.clone(), previews=[])


def causal_loss(model, heads, batch: Batch):
    loss = model(**batch.inputs, labels=batch.labels).loss
    return loss, {"loss": float(loss.detach())}


def next_token_accuracy(model, heads, batch: Batch) -> dict[str, float]:
    logits = model(**batch.inputs).logits[:, :-1]  # [B, T-1, V]
    return {"accuracy": float((logits.argmax(-1) == batch.labels[:, 1:]).float().mean())}


def make_task(model, n_train: int = 256, n_valid: int = 32, loss=causal_loss, heads=None) -> TrainingTask:
    train = synthetic_sequences(n_train, seed=1)
    valid = synthetic_sequences(n_valid, seed=2)
    return TrainingTask(
        model=model, heads=heads or {}, train_size=n_train,
        make_batch=lambda indices, rng: batch_of(train[indices]),
        loss=loss,
        validation_batches=lambda: [batch_of(valid[i:i + 16]) for i in range(0, n_valid, 16)],
        evaluate=next_token_accuracy,
    )


class GlobalBatchSampler:
    """A fixed seeded order cut into global batches of ``batch_size * world_size``; rank r takes the r-th slice.

    With it, 2 ranks of batch 4 see exactly the examples one process of batch 8 sees, so a DDP run can be
    compared with a single-process one.
    """

    def __init__(self, n: int, batch_size: int, seed: int, rank: int = 0, world_size: int = 1):
        self.order = np.random.default_rng(seed).permutation(n)
        self.batch_size, self.rank, self.world_size = batch_size, rank, world_size
        self.position = 0

    def next_indices(self) -> list[int]:
        width = self.batch_size * self.world_size
        start = self.position % (len(self.order) - width + 1)
        self.position += width
        mine = self.order[start + self.rank * self.batch_size: start + (self.rank + 1) * self.batch_size]
        return [int(i) for i in mine]

    def state_dict(self) -> dict:
        return {"position": self.position}

    def load_state_dict(self, state: dict) -> None:
        self.position = int(state["position"])

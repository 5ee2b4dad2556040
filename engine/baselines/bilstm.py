"""A BiLSTM sentence classifier trained from scratch (the ELMo lecture's "architecture engineering" baseline).

Words (lower-cased, ``\\w+`` or one punctuation mark) are indexed from the training texts (words seen fewer than
``min_count`` times become ``<unk>``); an embedding (``embedding`` wide), a bidirectional LSTM (``hidden`` per
direction, ``layers`` deep), max-pooling over time and a linear layer give the label. Adam, cross-entropy,
``epochs`` passes in batches of ``batch_size``, shuffled with ``seed``. ``train_bilstm`` is a job generator
(``Progress`` per epoch) returning a ``BaselineResult``; it honours the cancel token between batches.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Generator

from lm_workbench.engine.baselines.result import BaselineResult, accuracy, majority_share
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

WORD = re.compile(r"\w+|[^\w\s]")
PAD, UNK = 0, 1


@dataclass
class BiLSTMConfig:
    """The network's and the training's settings (sizes in units, ``lr`` Adam's step size)."""

    embedding: int = 64
    hidden: int = 64
    layers: int = 1
    dropout: float = 0.1
    epochs: int = 8
    batch_size: int = 32
    lr: float = 5e-3
    min_count: int = 1
    max_length: int = 64

    def check(self) -> None:
        for name in ("embedding", "hidden", "layers", "epochs", "batch_size", "min_count", "max_length"):
            if int(getattr(self, name)) < 1:
                raise WorkbenchError(f"BiLSTM {name} must be >= 1, not {getattr(self, name)}")
        if not 0 <= self.dropout < 1:
            raise WorkbenchError(f"BiLSTM dropout must be in [0, 1), not {self.dropout}")
        if not self.lr > 0:
            raise WorkbenchError(f"BiLSTM lr must be > 0, not {self.lr}")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def build_vocab(texts: list[str], min_count: int) -> dict[str, int]:
    """{word: index}; 0 is padding, 1 unknown; words in order of first appearance (deterministic)."""
    counts = Counter(w for t in texts for w in words(t))
    vocab = {"<pad>": PAD, "<unk>": UNK}
    for t in texts:
        for w in words(t):
            if w not in vocab and counts[w] >= min_count:
                vocab[w] = len(vocab)
    return vocab


def _encode(texts: list[str], vocab: dict[str, int], max_length: int) -> Any:
    import torch

    ids = [[vocab.get(w, UNK) for w in words(t)][:max_length] or [UNK] for t in texts]
    width = max(len(r) for r in ids)
    return torch.tensor([r + [PAD] * (width - len(r)) for r in ids], dtype=torch.long)


def make_model(vocab_size: int, n_labels: int, config: BiLSTMConfig) -> Any:
    import torch
    from torch import nn

    class BiLSTMClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab_size, config.embedding, padding_idx=PAD)
            self.lstm = nn.LSTM(config.embedding, config.hidden, num_layers=config.layers, batch_first=True,
                                bidirectional=True, dropout=config.dropout if config.layers > 1 else 0.0)
            self.drop = nn.Dropout(config.dropout)
            self.out = nn.Linear(2 * config.hidden, n_labels)

        def forward(self, ids: Any) -> Any:
            states, _ = self.lstm(self.embed(ids))  # (batch, time, 2 * hidden)
            mask = (ids != PAD).unsqueeze(-1)
            pooled = states.masked_fill(~mask, float("-inf")).max(dim=1).values  # max over the real tokens
            return self.out(self.drop(pooled))

    return BiLSTMClassifier()


def train_bilstm(train_texts: list[str], train_labels: list[str], test_texts: list[str], test_labels: list[str],
                 *, config: BiLSTMConfig | None = None, seed: int = 0, cancel: CancelToken = NEVER_CANCELLED
                 ) -> Generator[Any, None, BaselineResult]:
    """Train from scratch on the training texts, score the test texts (see the module docstring)."""
    import torch

    config = config or BiLSTMConfig()
    config.check()
    classes = sorted(set(train_labels))
    if len(classes) < 2:
        raise WorkbenchError("the training texts have one label; a classifier needs at least two")
    start = time.perf_counter()
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    vocab = build_vocab(train_texts, config.min_count)
    x = _encode(train_texts, vocab, config.max_length)
    index = {c: i for i, c in enumerate(classes)}
    y = torch.tensor([index[v] for v in train_labels], dtype=torch.long)
    model = make_model(len(vocab), len(classes), config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    curve: list[tuple[int, float]] = []
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = torch.randperm(len(y), generator=generator)
        total, batches = 0.0, 0
        for i in range(0, len(order), config.batch_size):
            cancel.check()
            rows = order[i:i + config.batch_size]
            optimiser.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimiser.step()
            total, batches = total + loss.item(), batches + 1
        curve.append((epoch, total / max(1, batches)))
        yield Progress(epoch, config.epochs, f"BiLSTM epoch {epoch} of {config.epochs}: loss {curve[-1][1]:.4f}")
    model.eval()
    with torch.no_grad():
        logits = model(_encode(test_texts, vocab, config.max_length)) if test_texts else torch.zeros(0, len(classes))
    predictions = [classes[i] for i in logits.argmax(-1).tolist()]
    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return BaselineResult(accuracy=accuracy(predictions, test_labels), majority=majority_share(train_labels, test_labels),
                          trainable_parameters=int(params), train_size=len(train_texts), test_size=len(test_texts),
                          labels=classes, predictions=predictions, wall_s=time.perf_counter() - start,
                          feature_count=len(vocab), curve=curve)

"""The sentence task inside the one training loop: its encoded examples, batches, loss and validation.

Each example's sentences (2 or 3: the file's columns) are tokenized alone; a batch stacks the first sentences of
its B examples, then the second ones (then the third), into one padded forward pass of the shared encoder
(a siamese network: one set of weights), pools them (``pooling``) and hands the 2 or 3 [B, H] blocks to the loss
(``losses.sentence_loss``). ``SentenceSetup`` is what the task needs besides the data: the loss, the pooling, the
triplet margin, the scores' maximum (the cosine loss's target is score / max) and the notes a summary shows.

Validation (``lm_workbench.engine.finetune.tasks.sentence``): on scored pairs, Spearman's rho of the pairs' cosines
(``pair_cosines``) against their gold scores; on triplets there is no score to rank by. The loop's validation loss
is computed only where the validation examples suit the loss (scored pairs for cosine and CoSENT, triplets for
triplet and in-batch negatives); elsewhere it is not defined (None in the summary, with a note), and Spearman is
the curve. In-batch losses (MNRL, CoSENT) train on batches that never hold a
pair twice and never hold one pair alone (``lm_workbench.engine.sentence.batches``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.names import TRIPLET_MARGIN
from lm_workbench.engine.sentence.data import ScoredPair, Triplet
from lm_workbench.engine.sentence.losses import sentence_loss
from lm_workbench.engine.sentence.pooling import sentence_vectors
from lm_workbench.engine.objectives.batching import Batch, pad_rows
from lm_workbench.engine.training.task import TrainingTask

SCORED_LOSSES = ("cosine", "cosent")
TRIPLET_LOSSES = ("triplet", "mnrl")


@dataclass
class SentenceSetup:
    loss: str
    pooling: str = "mean"
    margin: float = TRIPLET_MARGIN
    score_max: float = 1.0
    use_negatives: bool = True  # in-batch negatives: also the hard negatives (when every example has one)
    notes: list[str] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)  # what was dropped or not defined (also the summary's notes)

    def count(self, line: str) -> None:
        """Say ``line`` in ``notes`` and ``counted`` (once)."""
        for target in (self.notes, self.counted):
            if line not in target:
                target.append(line)

    def as_json(self) -> dict[str, Any]:
        return {"loss": self.loss, "pooling": self.pooling, "margin": self.margin, "score_max": self.score_max,
                "notes": list(self.notes)}


def example_texts(example: Any, setup: SentenceSetup) -> list[str]:
    if isinstance(example, ScoredPair):
        return [example.first, example.second]
    texts = [example.anchor, example.positive]
    if example.negative is not None and (setup.loss == "triplet" or setup.use_negatives):
        texts.append(example.negative)
    return texts


def suits_loss(examples: Sequence[Any], loss: str) -> bool:
    """Whether ``examples`` can be scored by ``loss`` (scored pairs for cosine/CoSENT, triplets otherwise)."""
    if not examples:
        return False
    scored = isinstance(examples[0], ScoredPair)
    if loss in SCORED_LOSSES:
        return scored
    if scored:
        return False
    return loss != "triplet" or all(e.negative is not None for e in examples)


def encode_sentences(tokenizer: Any, examples: Sequence[Any], setup: SentenceSetup, max_length: int) -> list[dict]:
    """One feature per example: ``texts`` (each sentence's input ids, attention mask, token types) and ``score``."""
    out, truncated = [], 0
    for example in examples:
        encoded = [dict(tokenizer(text, truncation=True, max_length=max_length, return_overflowing_tokens=False))
                   for text in example_texts(example, setup)]
        truncated += sum(len(e["input_ids"]) >= max_length and len(tokenizer(t)["input_ids"]) > max_length
                         for e, t in zip(encoded, example_texts(example, setup)))
        out.append({"texts": encoded, "score": float(getattr(example, "score", 0.0))})
    if truncated:
        note = f"{truncated} sentence(s) longer than {max_length} tokens were cut to {max_length} (max length)"
        if note not in setup.notes:
            setup.notes.append(note)
    return out


def collate_sentences(features: Sequence[dict], pad_id: int) -> Batch:
    """Column-major: every example's first sentence, then every second one (then third), padded to one width."""
    columns = min(len(f["texts"]) for f in features)
    rows = [f["texts"][c] for c in range(columns) for f in features]
    inputs = {"input_ids": torch.from_numpy(pad_rows([r["input_ids"] for r in rows], pad_id)),
              "attention_mask": torch.from_numpy(pad_rows([r["attention_mask"] for r in rows], 0))}
    if all("token_type_ids" in r for r in rows):
        inputs["token_type_ids"] = torch.from_numpy(pad_rows([r["token_type_ids"] for r in rows], 0))
    scores = torch.tensor([f["score"] for f in features], dtype=torch.float32)
    return Batch(inputs=inputs, labels=scores, previews=[None] * len(features))  # type: ignore[list-item]


def batch_vectors(model: Any, batch: Batch, pooling: str) -> list[torch.Tensor]:
    """The batch's sentence vectors as its 2 or 3 columns, each [B, H]."""
    size = len(batch.labels)
    vectors = sentence_vectors(model, batch.inputs, pooling)
    return list(vectors.split(size, dim=0))


def build_sentence_task(model: Any, train: list[dict], validation: list[dict], pad_id: int, batch_size: int,
                        setup: SentenceSetup, validation_suits: bool) -> TrainingTask:
    """The loop's task; for an in-batch loss a validation batch of one is dropped and counted
    (``batches.validation_chunks``)."""
    from lm_workbench.engine.sentence.batches import validation_chunks

    val_batches = []
    if validation_suits:
        chunks, notes = validation_chunks(len(validation), batch_size, setup.loss)
        val_batches = [collate_sentences(validation[a:b], pad_id) for a, b in chunks]
        for line in notes:
            setup.count(line)

    def make_batch(indices: list[int], rng: Any) -> Batch:
        return collate_sentences([train[i] for i in indices], pad_id)

    def loss(model: Any, heads: dict, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        vectors = batch_vectors(model, batch, setup.pooling)
        return sentence_loss(setup.loss, vectors, batch.labels, margin=setup.margin, score_max=setup.score_max), {}

    return TrainingTask(model=model, heads={}, train_size=len(train), make_batch=make_batch, loss=loss,
                        validation_batches=lambda: val_batches, eval_weight=lambda batch: float(len(batch.labels)))


@torch.no_grad()
def embed(model: Any, tokenizer: Any, texts: Sequence[str], pooling: str, max_length: int,
          batch_size: int = 32) -> torch.Tensor:
    """[n, H] float32 sentence vectors of ``texts`` (eval mode, no gradient), in input order."""
    if not texts:
        raise WorkbenchError("no sentences to embed")
    was_training = model.training
    model.eval()
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = next(model.parameters()).device
    out = []
    try:
        for start in range(0, len(texts), batch_size):
            rows = [dict(tokenizer(t, truncation=True, max_length=max_length)) for t in texts[start:start + batch_size]]
            inputs = {"input_ids": torch.from_numpy(pad_rows([r["input_ids"] for r in rows], pad_id)),
                      "attention_mask": torch.from_numpy(pad_rows([r["attention_mask"] for r in rows], 0))}
            if all("token_type_ids" in r for r in rows):
                inputs["token_type_ids"] = torch.from_numpy(pad_rows([r["token_type_ids"] for r in rows], 0))
            inputs = {k: v.to(device) for k, v in inputs.items()}
            out.append(sentence_vectors(model, inputs, pooling).float().cpu())
    finally:
        model.train(was_training)
    return torch.cat(out)


def pair_cosines(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], pooling: str, max_length: int,
                 batch_size: int = 32) -> list[float]:
    """cos(u, v) of each pair's two sentence vectors (each distinct sentence encoded once)."""
    texts = list(dict.fromkeys([a for a, _ in pairs] + [b for _, b in pairs]))
    row = {t: i for i, t in enumerate(texts)}
    vectors = torch.nn.functional.normalize(embed(model, tokenizer, texts, pooling, max_length, batch_size), dim=-1)
    return [float(vectors[row[a]] @ vectors[row[b]]) for a, b in pairs]


def check_setup(setup: SentenceSetup, train: Sequence[Any], is_decoder: bool) -> None:
    """Refuse a loss the training data cannot feed, or [CLS] pooling on a left-to-right model."""
    if not suits_loss(train, setup.loss):
        kind = "scored pairs" if train and isinstance(train[0], ScoredPair) else "triplets"
        wants = "scored pairs (sentence1, sentence2, score)" if setup.loss in SCORED_LOSSES else (
            "triplets with a negative (anchor, positive, negative)" if setup.loss == "triplet"
            else "(anchor, positive) pairs or triplets")
        raise WorkbenchError(f"the {setup.loss} loss needs {wants}; the training file has {kind}")
    if is_decoder and setup.pooling == "cls":
        raise WorkbenchError("[CLS] pooling on a left-to-right model takes the first token, which has seen only "
                             "itself; use mean (or max) pooling for a decoder")


def default_loss(train: Sequence[Any]) -> str:
    """cosine for scored pairs, triplet for triplets that all have a negative, in-batch negatives otherwise."""
    if train and isinstance(train[0], ScoredPair):
        return "cosine"
    return "triplet" if train and all(isinstance(e, Triplet) and e.negative for e in train) else "mnrl"

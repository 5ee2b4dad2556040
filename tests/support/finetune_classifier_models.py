"""Tiny BERT and GPT-2 sequence classifiers from configs and a synthetic two-class task, for the fine-tuning tests."""

from __future__ import annotations

import torch

HIDDEN, LAYERS, INTERMEDIATE, VOCAB, LABELS = 32, 2, 64, 100, 2


def tiny_classifier(kind: str, seed: int = 0):
    """A fresh tiny ``kind`` ("bert" or "gpt2") sequence classifier; the same ``seed`` gives the same weights."""
    import transformers as tf

    torch.manual_seed(seed)
    if kind == "bert":
        config = tf.BertConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=4,
                               intermediate_size=INTERMEDIATE, vocab_size=VOCAB, max_position_embeddings=32,
                               num_labels=LABELS, pad_token_id=0)
        model = tf.BertForSequenceClassification(config)
    elif kind == "gpt2":
        config = tf.GPT2Config(n_embd=HIDDEN, n_layer=LAYERS, n_head=4, n_inner=INTERMEDIATE, vocab_size=VOCAB,
                               n_positions=32, num_labels=LABELS, pad_token_id=0)
        model = tf.GPT2ForSequenceClassification(config)
    else:
        raise ValueError(kind)
    return model.eval()


def two_class_batch(size: int = 16, length: int = 8, seed: int = 1):
    """Class 0 sentences use tokens 10..49, class 1 tokens 50..89; no padding."""
    generator = torch.Generator().manual_seed(seed)
    labels = torch.arange(size) % 2
    low = 10 + 40 * labels
    ids = low[:, None] + torch.randint(0, 40, (size, length), generator=generator)
    return ids, labels

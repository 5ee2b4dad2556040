"""Tiny task models for the fine-tuning method tests: the same base weights, a head drawn from its own seed.

A "fresh base" is what a user gets when loading a base model into a task
model again: the same pretrained weights and a new random head.
"""

from __future__ import annotations

import torch

HIDDEN, LAYERS, INTERMEDIATE, VOCAB, LABELS, HEADS = 32, 2, 64, 100, 3, 4
BATCH, LENGTH = 6, 9

TASK_CLASSES = {"seq-cls": "ForSequenceClassification", "token-cls": "ForTokenClassification",
                "qa": "ForQuestionAnswering", "seq2seq": "ForConditionalGeneration"}


def _config(kind: str, task: str):
    import transformers as tf

    labels = 2 if task == "qa" else LABELS
    if kind == "bert":
        return tf.BertConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                             intermediate_size=INTERMEDIATE, vocab_size=VOCAB, max_position_embeddings=64,
                             num_labels=labels, pad_token_id=0)
    if kind == "gpt2":
        return tf.GPT2Config(n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_inner=INTERMEDIATE, vocab_size=VOCAB,
                             n_positions=64, num_labels=labels, pad_token_id=0, bos_token_id=1, eos_token_id=1)
    if kind == "bart":
        return tf.BartConfig(d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
                             encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                             encoder_ffn_dim=INTERMEDIATE, decoder_ffn_dim=INTERMEDIATE, vocab_size=VOCAB,
                             max_position_embeddings=64, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                             decoder_start_token_id=2, forced_eos_token_id=None, num_labels=labels)
    if kind == "t5":
        return tf.T5Config(d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=INTERMEDIATE, num_layers=LAYERS,
                           num_decoder_layers=LAYERS, num_heads=HEADS, vocab_size=VOCAB, pad_token_id=0,
                           eos_token_id=1, decoder_start_token_id=0)
    if kind == "llama":
        return tf.LlamaConfig(hidden_size=HIDDEN, intermediate_size=INTERMEDIATE, num_hidden_layers=LAYERS,
                              num_attention_heads=HEADS, num_key_value_heads=HEADS // 2, vocab_size=VOCAB,
                              max_position_embeddings=64, num_labels=labels, pad_token_id=0, bos_token_id=1,
                              eos_token_id=1)
    raise ValueError(kind)


def task_model(kind: str, task: str, head_seed: int = 0):
    """A tiny ``kind`` task model in eval mode: base weights from seed 0, the task head from ``head_seed``."""
    import transformers as tf

    prefix = {"bert": "Bert", "gpt2": "GPT2", "bart": "Bart", "t5": "T5", "llama": "Llama"}[kind]
    cls = getattr(tf, prefix + TASK_CLASSES[task])
    torch.manual_seed(0)
    model = cls(_config(kind, task))
    torch.manual_seed(1000 + head_seed)
    for name in ("classifier", "score", "qa_outputs"):
        head = getattr(model, name, None)
        if head is not None:
            torch.nn.init.normal_(head.weight, std=0.5)
            if head.bias is not None:
                torch.nn.init.normal_(head.bias, std=0.5)
    return model.eval()


def task_batch(task: str, seed: int = 0, pad: int = 2) -> tuple[dict, dict]:
    """(inputs, targets) for ``task``: random ids, the last ``pad`` positions of row 0 padded."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(3, VOCAB, (BATCH, LENGTH), generator=generator)
    mask = torch.ones_like(ids)
    mask[0, LENGTH - pad:] = 0
    inputs = {"input_ids": ids, "attention_mask": mask}
    if task == "seq-cls":
        targets = {"labels": torch.arange(BATCH) % LABELS}
    elif task == "token-cls":
        labels = torch.randint(0, LABELS, (BATCH, LENGTH), generator=generator)
        labels[0, LENGTH - pad:] = -100
        targets = {"labels": labels}
    elif task == "qa":
        start = torch.randint(0, LENGTH - pad, (BATCH,), generator=generator)
        targets = {"start_positions": start, "end_positions": (start + 1).clamp(max=LENGTH - pad - 1)}
    else:
        targets = {"labels": torch.randint(3, VOCAB, (BATCH, 5), generator=generator)}
    return inputs, targets


def outputs_of(model, task: str, inputs: dict) -> list[torch.Tensor]:
    """The logits the task's predictions come from (eval, no grad); seq2seq with fixed decoder inputs."""
    with torch.no_grad():
        if task == "seq2seq":
            decoder = torch.full((inputs["input_ids"].shape[0], 4), 5, dtype=torch.long)
            decoder[:, 0] = model.config.decoder_start_token_id
            return [model(**inputs, decoder_input_ids=decoder).logits]
        out = model(**inputs)
        return [out.start_logits, out.end_logits] if task == "qa" else [out.logits]


def train_a_little(model, task: str, steps: int = 3, lr: float = 1e-2):
    """A few AdamW steps on one batch, so every trained tensor has moved from its start; returns eval model."""
    inputs, targets = task_batch(task, seed=1)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    for _ in range(steps):
        loss = model(**inputs, **targets).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()

"""BERT with a prefix, written out by hand: every layer's keys and values are the prefix's n rows concatenated
before the tokens' own, as Li & Liang (2021) describe, with nothing of peft's or of transformers' cache code.

``prefix`` is what peft stores (``prompt_embeddings``, [n, 2·L·D] without the reparameterisation MLP): row i
holds, for each layer l, the key (block 2l) and the value (block 2l + 1) of prefix position i, head by head.
The real tokens' positions start at n (the model sees the prefix as n tokens already read).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def bert_prefix_logits(model, prefix: torch.Tensor, input_ids: torch.Tensor, attention_mask: torch.Tensor
                       ) -> torch.Tensor:
    """[B, labels] logits of a ``BertForSequenceClassification`` (eval mode) with ``prefix`` in every layer."""
    config = model.config
    layers, heads, width = config.num_hidden_layers, config.num_attention_heads, config.hidden_size
    head_width, n = width // heads, prefix.shape[0]
    blocks = prefix.view(n, 2 * layers, heads, head_width).permute(1, 2, 0, 3)  # [2L, H, n, d]
    rows, tokens = input_ids.shape
    embeddings = model.bert.embeddings
    positions = torch.arange(n, n + tokens)
    x = (embeddings.word_embeddings(input_ids) + embeddings.position_embeddings(positions)[None]
         + embeddings.token_type_embeddings(torch.zeros_like(input_ids)))
    x = embeddings.LayerNorm(x)
    seen = torch.cat([torch.ones(rows, n), attention_mask.float()], dim=1)  # the prefix is always attended
    bias = (1.0 - seen)[:, None, None, :] * torch.finfo(torch.float32).min

    def split(t: torch.Tensor) -> torch.Tensor:  # [B, T, D] -> [B, H, T, d]
        return t.view(rows, tokens, heads, head_width).transpose(1, 2)

    for index, layer in enumerate(model.bert.encoder.layer):
        attention = layer.attention.self
        keys = torch.cat([blocks[2 * index].expand(rows, -1, -1, -1), split(attention.key(x))], dim=2)
        values = torch.cat([blocks[2 * index + 1].expand(rows, -1, -1, -1), split(attention.value(x))], dim=2)
        scores = split(attention.query(x)) @ keys.transpose(-1, -2) / math.sqrt(head_width) + bias
        context = (scores.softmax(-1) @ values).transpose(1, 2).reshape(rows, tokens, width)
        x = layer.attention.output.LayerNorm(layer.attention.output.dense(context) + x)
        x = layer.output.LayerNorm(layer.output.dense(F.gelu(layer.intermediate.dense(x))) + x)
    return model.classifier(torch.tanh(model.bert.pooler.dense(x[:, 0])))

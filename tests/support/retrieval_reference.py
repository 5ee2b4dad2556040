"""What the retrieval tests compare against: sentence vectors from a plain transformers forward (one text at a
time, pooled and normalised in numpy), and BEIR folders written in the published shape."""

from __future__ import annotations

import json

import numpy as np

from tests.support.tiny_models import corpus_lines

PASSAGES = corpus_lines(60)[5:29]
QUERIES = ["the value of an expression", "a loop over the items of a list", "classes and instances"]


def plain_hidden_states(folder, texts, window, model=None, tok=None):
    """Each text's last hidden states [T, H] (float64) from a plain transformers forward, one text at a time
    (the model and tokenizer loaded from ``folder``, or the bare ``model`` and ``tok`` given)."""
    import torch
    import transformers as tf

    tok = tok or tf.AutoTokenizer.from_pretrained(folder)
    model = model or tf.AutoModel.from_pretrained(folder).eval()
    out = []
    for text in texts:
        enc = tok(text, truncation=True, max_length=window, return_tensors="pt")
        with torch.no_grad():
            out.append(model(**enc).last_hidden_state[0].double().numpy())
    return out


def pooled(states, mode):
    """Unit vectors [n, H]: the mean of every token, the first token, or the element-wise max."""
    rows = [{"mean": h.mean(0), "cls": h[0], "max": h.max(0)}[mode] for h in states]
    return np.stack([v / np.linalg.norm(v) for v in rows])


def brute_force_vectors(folder, texts, mode, window):
    return pooled(plain_hidden_states(folder, texts, window), mode)


def write_beir(folder, corpus, queries, qrels_lines, split="test"):
    """corpus.jsonl, queries.jsonl and qrels/<split>.tsv (header query-id, corpus-id, score) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        "\t".join(map(str, row)) + "\n" for row in qrels_lines), encoding="utf-8")
    return folder

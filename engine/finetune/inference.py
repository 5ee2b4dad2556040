"""A fine-tuned task model's predictions, per task, in batches and without gradients.

The training job's validation and ``predict`` on a saved folder both go through these, so what the
view shows after training is what a reloaded model says. Each function puts ``model`` in eval mode
(dropout off) and returns plain Python values: a label (or tags, an answer span, a generated text)
and a confidence in [0, 1], the model's probability of what it predicted.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import torch

from lm_workbench.engine.finetune.alignment import encode_qa, scored_best_span
from lm_workbench.engine.finetune.encoding import qa_stride


def model_device(model: Any) -> torch.device:
    return next(model.parameters()).device


def _padded(tokenizer: Any, encodings: list[dict], device: torch.device) -> dict[str, torch.Tensor]:
    keys = [k for k in ("input_ids", "attention_mask", "token_type_ids") if all(k in e for e in encodings)]
    batch = tokenizer.pad([{k: e[k] for k in keys} for e in encodings], return_tensors="pt")
    return {k: v.to(device) for k, v in batch.items()}


def _chunks(items: Sequence[Any], size: int):
    for i in range(0, len(items), size):
        yield items[i:i + size]


@torch.no_grad()
def classify(model: Any, tokenizer: Any, texts: Sequence[tuple[str, str | None]], labels: Sequence[str],
             max_length: int, batch_size: int = 32) -> list[dict[str, Any]]:
    """``(text, pair or None)`` -> ``{"label", "confidence", "probabilities": {label: p}}`` each."""
    model.eval()
    device, out = model_device(model), []
    for chunk in _chunks(list(texts), batch_size):
        encodings = [tokenizer(a, b, truncation=True, max_length=max_length) for a, b in chunk]
        probabilities = model(**_padded(tokenizer, encodings, device)).logits.float().softmax(-1).cpu()
        for row in probabilities:
            best = int(row.argmax())
            out.append({"label": labels[best], "confidence": float(row[best]),
                        "probabilities": {label: float(p) for label, p in zip(labels, row)}})
    return out


@torch.no_grad()
def tag(model: Any, tokenizer: Any, sentences: Sequence[Sequence[str]], labels: Sequence[str],
        max_length: int, batch_size: int = 32) -> list[dict[str, Any]]:
    """Words -> ``{"tags", "confidences", "confidence"}``: each word's tag from its first subword (words
    cut off by ``max_length`` get "O" with confidence 0); ``confidence`` is the mean over words."""
    model.eval()
    device, out = model_device(model), []
    for chunk in _chunks([list(s) for s in sentences], batch_size):
        encodings = [tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_length)
                     for words in chunk]
        probabilities = model(**_padded(tokenizer, encodings, device)).logits.float().softmax(-1).cpu()
        for words, encoding, row in zip(chunk, encodings, probabilities):
            tags, confidences, seen = ["O"] * len(words), [0.0] * len(words), set()
            for position, word in enumerate(encoding.word_ids()):
                if word is None or word in seen:
                    continue
                seen.add(word)
                best = int(row[position].argmax())
                tags[word], confidences[word] = labels[best], float(row[position][best])
            out.append({"tags": tags, "confidences": confidences,
                        "confidence": sum(confidences) / len(confidences) if confidences else 0.0})
    return out


def words_read(tokenizer: Any, words: Sequence[str], max_length: int) -> int:
    """How many of ``words`` (from the first) have a token inside ``max_length`` tokens (``tag`` reads those)."""
    encoding = tokenizer(list(words), is_split_into_words=True, truncation=True, max_length=max_length)
    seen = {w for w in encoding.word_ids() if w is not None}
    return max(seen) + 1 if seen else 0


NULL_THRESHOLD = 0.0  # SQuAD 2.0: "no answer" when the null score beats the best span by more than this


def prefers_no_answer(null_score: float, span_score: float | None, threshold: float = NULL_THRESHOLD) -> bool:
    """BERT's SQuAD 2.0 decision: the null score (start logit[0] + end logit[0], the lowest over a
    context's windows) against the best non-null span's score; no answer when null − span > ``threshold``
    (or when no window has a valid span)."""
    return span_score is None or null_score - span_score > threshold


@torch.no_grad()
def answer(model: Any, tokenizer: Any, questions: Sequence[tuple[str, str]], max_length: int,
           batch_size: int = 32, null_threshold: float | None = None) -> list[dict[str, Any]]:
    """``(question, context)`` -> ``{"answer", "start", "end", "confidence"}``: the best span over all of the
    context's windows; ``confidence`` = p(start) · p(end) within its window (an empty answer: 0).

    With ``null_threshold`` (a model trained on SQuAD 2.0, where a question can have no answer) the
    answer is "" (start = end = -1) when ``prefers_no_answer`` says so; its confidence is then
    p(start = 0) · p(end = 0) in the window of the lowest null score. Without it (SQuAD 1.1) there is
    always a span when any window has one."""
    model.eval()
    device, out = model_device(model), []
    for question, context in questions:
        windows = encode_qa(tokenizer, question, context, None, None, max_length=max_length,
                            stride=qa_stride(max_length))
        best: tuple[float, tuple[int, int], float] | None = None
        null: tuple[float, float] | None = None  # (lowest null score, its probability)
        for chunk in _chunks(windows, batch_size):
            encodings = [{"input_ids": w.input_ids, "attention_mask": w.attention_mask} for w in chunk]
            output = model(**_padded(tokenizer, encodings, device))
            for i, window in enumerate(chunk):
                n = len(window.input_ids)
                starts, ends = output.start_logits[i, :n].float().cpu(), output.end_logits[i, :n].float().cpu()
                start_norm, end_norm = float(torch.logsumexp(starts, 0)), float(torch.logsumexp(ends, 0))
                null_score = float(starts[0]) + float(ends[0])
                if null is None or null_score < null[0]:
                    null = (null_score, math.exp(null_score - start_norm - end_norm))
                found = scored_best_span(starts.tolist(), ends.tolist(), window.offsets)
                if found is None:
                    continue
                score, span = found
                probability = math.exp(score - start_norm - end_norm)
                if best is None or score > best[0]:
                    best = (score, span, probability)
        if null_threshold is not None and null is not None and \
                prefers_no_answer(null[0], best[0] if best else None, null_threshold):
            out.append({"answer": "", "start": -1, "end": -1, "confidence": null[1]})
        elif best is None:
            out.append({"answer": "", "start": -1, "end": -1, "confidence": 0.0})
        else:
            (start, end), probability = best[1], best[2]
            out.append({"answer": context[start:end], "start": start, "end": end, "confidence": probability})
    return out


@torch.no_grad()
def generate(model: Any, tokenizer: Any, sources: Sequence[str], max_length: int,
             batch_size: int = 32) -> list[dict[str, Any]]:
    """Greedy decoding -> ``{"text", "confidence"}``; confidence = exp(mean log-probability of the tokens)."""
    model.eval()
    device, out = model_device(model), []
    pad = tokenizer.pad_token_id
    for chunk in _chunks(list(sources), batch_size):
        encodings = [tokenizer(s, truncation=True, max_length=max_length) for s in chunk]
        generated = model.generate(**_padded(tokenizer, encodings, device), max_new_tokens=max_length,
                                   do_sample=False, num_beams=1, output_scores=True, return_dict_in_generate=True)
        tokens = generated.sequences[:, 1:]  # after the decoder start token
        log_probs = torch.stack([torch.log_softmax(s.float(), -1) for s in generated.scores], dim=1)
        chosen = log_probs.gather(-1, tokens[:, :log_probs.shape[1]].unsqueeze(-1)).squeeze(-1)
        real = tokens[:, :log_probs.shape[1]] != pad
        for i in range(len(chunk)):
            count = int(real[i].sum())
            mean = float(chosen[i][real[i]].sum()) / count if count else float("-inf")
            out.append({"text": tokenizer.decode(tokens[i], skip_special_tokens=True).strip(),
                        "confidence": math.exp(mean) if count else 0.0})
    return out

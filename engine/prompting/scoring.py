"""Scoring a prompt: each label's log-score and probability, and what the model itself wanted to say.

- Cloze templates (encoders with an MLM head): ``[z]`` becomes one mask per answer subword. Multi-token
  answers are scored ``"left-to-right"`` (fill the masks one by one, each step conditioned on the answer's
  earlier subwords) or by ``"pll"``, the pseudo-log-likelihood of Salazar et al. (2020): the answer filled in,
  each of its subwords masked in turn. Every row these need goes into one batched forward pass, identical
  rows once, so all single-token answers share one forward.
- Prefix templates (decoders): the answer's tokens are those of ``tokenize(prompt + answer)`` after the
  prompt's, scored by their summed log-probability. The prompt runs once; its key/value cache serves every
  multi-token answer's continuation in one batched pass.
- Prefix templates (encoder-decoders): the encoder reads the prompt once; the answers are scored as the
  decoder's first tokens, all in one batched decoder pass.

An answer's score is its summed log-probability, or the mean per token with ``length_normalise``. A label's
log-score is the log of the summed probabilities of its answers (log-sum-exp of their scores); the label
probabilities are the softmax of the label log-scores. Demonstrations come before the query in the same
prompt; those that do not fit the model's window are dropped, first ones first, and the result says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import torch

from engine.decoding import _start_ids
from engine.errors import MissingHeadError, WorkbenchError
from engine.families import Family
from engine.predictions import Candidate, top_k as top_k_candidates
from engine.prompting.fewshot import Demonstration, demonstrations_text
from engine.prompting.template import Template
from engine.prompting.verbalizer import AnswerTokens, Verbalizer, answer_token_ids, split_space

MULTI_TOKEN = ("left-to-right", "pll")


@dataclass(frozen=True)
class AnswerScore:
    """One answer word: its tokens, each token's log-probability, and its score (summed or per token)."""

    label: str
    answer: str
    token_ids: tuple[int, ...]
    tokens: tuple[str, ...]
    token_log_probs: tuple[float, ...]
    score: float

    @property
    def log_prob(self) -> float:
        return float(sum(self.token_log_probs))

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "answer": self.answer, "token_ids": list(self.token_ids),
                "tokens": list(self.tokens), "token_log_probs": list(self.token_log_probs),
                "log_prob": self.log_prob, "score": self.score}


@dataclass
class ScoredPrompt:
    """What one input scores under one template and verbalizer.

    ``tokens`` / ``token_ids``: the prompt as the model reads it (cloze: with one mask at the answer slot;
    decoders: the prompt before the answer; encoder-decoders: the encoder's input). ``answer_positions``:
    cloze, the mask's index in ``tokens``; decoders, ``len(tokens)`` (where the answer's first token goes);
    encoder-decoders, 0 (the decoder's first position). ``top_k``: the model's own most probable tokens there.
    """

    text: str
    token_ids: list[int]
    tokens: list[str]
    answer_positions: list[int]
    labels: list[str]
    label_scores: list[float]
    label_probs: list[float]
    answers: list[AnswerScore]
    top_k: list[Candidate]
    demonstrations_used: list[int] = field(default_factory=list)  # indices into the demonstrations given
    dropped_demonstrations: list[int] = field(default_factory=list)

    @property
    def predicted(self) -> str:
        return self.labels[max(range(len(self.labels)), key=lambda i: self.label_scores[i])]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "token_ids": self.token_ids, "tokens": self.tokens,
                "answer_positions": self.answer_positions, "labels": self.labels,
                "label_scores": self.label_scores, "label_probs": self.label_probs, "predicted": self.predicted,
                "answers": [a.to_dict() for a in self.answers], "top_k": [c.to_dict() for c in self.top_k],
                "demonstrations_used": self.demonstrations_used,
                "dropped_demonstrations": self.dropped_demonstrations}


# ---------------------------------------------------------------- checks


def check_model_for(loaded: Any, template: Template) -> None:
    """Refuse a model that cannot score ``template`` (cloze needs an MLM head; prefix an LM head)."""
    info, family = loaded.info, loaded.family
    if template.mode == "cloze":
        if family is not Family.ENCODER or not info.has_mlm_head:
            raise MissingHeadError(f"a cloze template needs a masked LM with its MLM head, and {info.spec} "
                                   f"{'is a ' + family.value if family is not Family.ENCODER else 'has none'}; "
                                   "use a prefix template with a decoder or encoder-decoder")
        if loaded.tokenizer.mask_token is None:
            raise MissingHeadError(f"the tokenizer of {info.spec} has no mask token")
        return
    if family not in (Family.DECODER, Family.ENCODER_DECODER) or not info.has_lm_head:
        raise MissingHeadError(f"a prefix template needs a decoder or encoder-decoder with its LM head; "
                               f"{info.spec} is {'an' if family.value[0] in 'ae' else 'a'} {family.value}"
                               f"{'' if info.has_lm_head else ' without one'}; use a cloze template with a "
                               "masked LM")


def check_multi_token(method: str) -> None:
    if method not in MULTI_TOKEN:
        raise WorkbenchError(f"multi-token scoring must be left-to-right or pll, not {method!r}")


# ---------------------------------------------------------------- shared arithmetic


def logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return -math.inf
    return top + math.log(sum(math.exp(v - top) for v in values))


def softmax(values: Sequence[float]) -> list[float]:
    total = logsumexp(values)
    return [math.exp(v - total) for v in values]


def _answer_score(label: str, answer: str, ids: Sequence[int], log_probs: Sequence[float], tokenizer: Any,
                  length_normalise: bool) -> AnswerScore:
    total = float(sum(log_probs))
    score = total / len(log_probs) if length_normalise else total
    return AnswerScore(label, answer, tuple(ids), tuple(tokenizer.convert_ids_to_tokens(list(ids))),
                       tuple(float(v) for v in log_probs), score)


def _labels(verbalizer: Verbalizer, answers: list[AnswerScore]) -> tuple[list[float], list[float]]:
    scores = [logsumexp([a.score for a in answers if a.label == label]) for label in verbalizer.labels]
    return scores, softmax(scores)


# ---------------------------------------------------------------- prompts that fit


@dataclass(frozen=True)
class _Prompt:
    before: str  # the text up to [z], demonstrations first
    after: str
    used: list[int]
    dropped: list[int]


def _window(loaded: Any) -> int | None:
    window = loaded.info.max_positions
    return int(window) if window else None


def _fit(loaded: Any, template: Template, verbalizer: Verbalizer, x: str, x2: str | None,
         demonstrations: Sequence[Demonstration], separator: str, longest_answer: int) -> _Prompt:
    """The prompt with as many demonstrations as fit the window (the first ones are dropped first)."""
    before, after = template.split(x, x2)
    window = _window(loaded)
    used = list(range(len(demonstrations)))
    dropped: list[int] = []
    while True:
        context = demonstrations_text(template, verbalizer, [demonstrations[i] for i in used], separator)
        prompt = _Prompt(context + before, after, list(used), list(dropped))
        length = _length(loaded, template, prompt, longest_answer)
        if window is None or length <= window:
            return prompt
        if not used:
            which = f"; all demonstrations were dropped ({', '.join(str(i + 1) for i in dropped)})" if dropped else ""
            raise WorkbenchError(f"the prompt is {length} tokens long with its answer and the model reads "
                                 f"{window}{which}: shorten the input or the template")
        dropped.append(used.pop(0))


def _length(loaded: Any, template: Template, prompt: _Prompt, longest_answer: int) -> int:
    tokenizer = loaded.tokenizer
    if template.mode == "cloze":
        return len(_cloze_ids(tokenizer, prompt)[0]) + longest_answer - 1
    if loaded.family is Family.ENCODER_DECODER:
        return len(_encoder_ids(tokenizer, prompt.before))
    return len(decoder_prompt_ids(tokenizer, prompt.before)) + longest_answer - 1


# ---------------------------------------------------------------- token ids


def _cloze_ids(tokenizer: Any, prompt: _Prompt) -> tuple[list[int], int]:
    """The prompt's ids with one mask token at the answer slot, and the slot's index (found by its
    character offset, so an input that is itself the mask token, as in calibration, stays an input)."""
    mask = tokenizer.mask_token
    context, space = split_space(prompt.before)
    head = context + space
    enc = tokenizer(head + mask + prompt.after, return_offsets_mapping=True)
    ids = list(enc["input_ids"])
    masks = [i for i, t in enumerate(ids) if t == tokenizer.mask_token_id]
    at = [i for i in masks if enc["offset_mapping"][i][1] > len(head) >= enc["offset_mapping"][i][0]]
    if not masks:
        raise WorkbenchError(f"the tokenizer does not keep its mask token {mask} whole")
    return ids, at[0] if at else _nearest(masks, enc["offset_mapping"], len(head))


def _nearest(masks: list[int], offsets: Any, start: int) -> int:
    return min(masks, key=lambda i: abs(offsets[i][0] - start))


def decoder_prompt_ids(tokenizer: Any, before: str) -> list[int]:
    """A decoder's prompt: the text before [z] without its trailing spaces (they go with the answer),
    after the tokenizer's own start token where it adds one; a text-less prompt starts at BOS/EOS."""
    context, _ = split_space(before)
    plain = list(tokenizer(context, add_special_tokens=False)["input_ids"]) if context else []
    probe = list(tokenizer("a")["input_ids"])
    bos = tokenizer.bos_token_id
    starts_with_bos = bos is not None and probe and probe[0] == bos and len(probe) > 1
    if starts_with_bos:
        plain = [bos] + plain
    if not plain:
        start = bos if bos is not None else tokenizer.eos_token_id
        if start is None:
            raise WorkbenchError("the prompt before [z] is empty and the model has no start token")
        plain = [start]
    return plain


def _encoder_ids(tokenizer: Any, before: str) -> list[int]:
    context, _ = split_space(before)
    return list(tokenizer(context)["input_ids"])


def _device(loaded: Any) -> Any:
    return next(loaded.model.parameters()).device


# ---------------------------------------------------------------- the three ways of scoring


def _answers(loaded: Any, verbalizer: Verbalizer, before: str) -> list[tuple[str, str, list[int]]]:
    enc_dec = loaded.family is Family.ENCODER_DECODER
    return [(label, word, answer_token_ids(loaded.tokenizer, before, word, encoder_decoder=enc_dec))
            for label, words in verbalizer.answers for word in words]


@torch.inference_mode()
def _score_cloze(loaded: Any, prompt: _Prompt, answers: list[tuple[str, str, list[int]]], multi_token: str,
                 top_k: int) -> tuple[list[int], int, list[list[float]], list[Candidate]]:
    tokenizer, model = loaded.tokenizer, loaded.model
    ids, slot = _cloze_ids(tokenizer, prompt)
    mask = tokenizer.mask_token_id
    rows: dict[tuple[int, ...], int] = {}

    def row(answer_part: list[int]) -> int:
        key = tuple(ids[:slot] + answer_part + ids[slot + 1:])
        return rows.setdefault(key, len(rows))

    row([mask])  # the single-mask prompt: the model's own top-k
    wanted: list[list[tuple[int, int, int]]] = []  # per answer: (row, position, token id) per subword
    for _, _, aids in answers:
        n = len(aids)
        steps = []
        for i in range(n):
            if multi_token == "pll":
                part = aids[:i] + [mask] + aids[i + 1:]
            else:  # left to right: earlier subwords filled, this and later ones masked
                part = aids[:i] + [mask] * (n - i)
            steps.append((row(part), slot + i, aids[i]))
        wanted.append(steps)
    keys = list(rows)
    length = max(len(k) for k in keys)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = _device(loaded)
    input_ids = torch.tensor([list(k) + [pad] * (length - len(k)) for k in keys], device=device)
    attention = torch.tensor([[1] * len(k) + [0] * (length - len(k)) for k in keys], device=device)
    logits = model(input_ids=input_ids, attention_mask=attention).logits
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    scores = [[float(log_probs[r, p, t]) for r, p, t in steps] for steps in wanted]
    return ids, slot, scores, top_k_candidates(logits[0, slot], tokenizer, top_k)


@torch.inference_mode()
def _score_decoder(loaded: Any, prompt_ids: list[int], answers: list[tuple[str, str, list[int]]], top_k: int
                   ) -> tuple[list[list[float]], list[Candidate]]:
    model, device = loaded.model, _device(loaded)
    out = model(input_ids=torch.tensor([prompt_ids], device=device), use_cache=True)
    last = out.logits[0, -1]
    first = torch.log_softmax(last.float(), dim=-1)
    scores = [[float(first[aids[0]])] for _, _, aids in answers]
    longer = [i for i, (_, _, aids) in enumerate(answers) if len(aids) > 1]
    if longer:
        width = max(len(answers[i][2]) - 1 for i in longer)
        rows = [answers[i][2][:-1] + [answers[i][2][-1]] * (width - len(answers[i][2]) + 1) for i in longer]
        past = out.past_key_values
        past.batch_repeat_interleave(len(longer))
        # right padding needs no mask: causal attention keeps every real position away from the pad after it
        logits = model(input_ids=torch.tensor(rows, device=device), past_key_values=past, use_cache=False).logits
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        for b, i in enumerate(longer):
            aids = answers[i][2]
            scores[i] += [float(log_probs[b, j - 1, aids[j]]) for j in range(1, len(aids))]
    return scores, top_k_candidates(last, loaded.tokenizer, top_k)


@torch.inference_mode()
def _score_encoder_decoder(loaded: Any, source_ids: list[int], answers: list[tuple[str, str, list[int]]],
                           top_k: int) -> tuple[list[list[float]], list[Candidate]]:
    model, device = loaded.model, _device(loaded)
    source = torch.tensor([source_ids], device=device)
    encoded = model.get_encoder()(input_ids=source, attention_mask=torch.ones_like(source))
    start = _start_ids(model)
    width = max(len(aids) for _, _, aids in answers)
    rows = [[start] + aids[:-1] + [aids[-1]] * (width - len(aids)) for _, _, aids in answers]
    n = len(rows)
    hidden = encoded.last_hidden_state.expand(n, -1, -1)
    encoded.last_hidden_state = hidden
    logits = model(encoder_outputs=encoded, attention_mask=torch.ones(n, source.shape[1], dtype=torch.long,
                                                                      device=device),
                   decoder_input_ids=torch.tensor(rows, device=device)).logits
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    scores = [[float(log_probs[b, j, aids[j]]) for j in range(len(aids))] for b, (_, _, aids) in enumerate(answers)]
    return scores, top_k_candidates(logits[0, 0], loaded.tokenizer, top_k)


# ---------------------------------------------------------------- one example


def answer_tokenizations(loaded: Any, template: Template, verbalizer: Verbalizer, x: str = "",
                         x2: str | None = None) -> list[AnswerTokens]:
    """Every answer's tokens as they will be scored after this template's text (and input ``x``)."""
    before, _ = template.split(x, x2 if x2 is not None or not template.is_pair else "")
    return verbalizer.tokenizations(loaded.tokenizer, template.mode, before,
                                    encoder_decoder=loaded.family is Family.ENCODER_DECODER)


def score_example(loaded: Any, template: Template, verbalizer: Verbalizer, x: str, x2: str | None = None,
                  demonstrations: Sequence[Demonstration] = (), *, multi_token: str = "left-to-right",
                  length_normalise: bool = False, top_k: int = 10, separator: str = "\n\n") -> ScoredPrompt:
    """Score every label of ``verbalizer`` for input ``x`` (and ``x2``) under ``template``, after the
    ``demonstrations`` (each the template filled with its label's first answer, then ``separator``)."""
    check_model_for(loaded, template)
    check_multi_token(multi_token)
    tokenizer = loaded.tokenizer
    before, _ = template.split(x, x2)
    longest = max(len(ids) for _, _, ids in _answers(loaded, verbalizer, before))
    prompt = _fit(loaded, template, verbalizer, x, x2, demonstrations, separator, longest)
    answers = _answers(loaded, verbalizer, prompt.before)
    if template.mode == "cloze":
        ids, slot, scores, top = _score_cloze(loaded, prompt, answers, multi_token, top_k)
        positions = [slot]
    elif loaded.family is Family.ENCODER_DECODER:
        ids = _encoder_ids(tokenizer, prompt.before)
        scores, top = _score_encoder_decoder(loaded, ids, answers, top_k)
        positions = [0]
    else:
        ids = decoder_prompt_ids(tokenizer, prompt.before)
        scores, top = _score_decoder(loaded, ids, answers, top_k)
        positions = [len(ids)]
    scored = [_answer_score(label, word, aids, s, tokenizer, length_normalise)
              for (label, word, aids), s in zip(answers, scores)]
    label_scores, label_probs = _labels(verbalizer, scored)
    text = tokenizer.decode(ids, skip_special_tokens=False)
    return ScoredPrompt(text, ids, tokenizer.convert_ids_to_tokens(ids), positions, verbalizer.labels,
                        label_scores, label_probs, scored, top, prompt.used, prompt.dropped)

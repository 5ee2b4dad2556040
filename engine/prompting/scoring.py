"""Scoring a prompt: each label's log-score and probability, and what the model itself wanted to say.

- Cloze templates (encoders with an MLM head): ``[z]`` becomes one mask per answer subword. Multi-token
  answers are scored ``"left-to-right"`` (fill the masks one by one, each step conditioned on the answer's
  earlier subwords) or by ``"pll"``, the pseudo-log-likelihood of Salazar et al. (2020): the answer filled in,
  each of its subwords masked in turn. Identical rows run once, so all single-token answers share one.
- Prefix templates (decoders): the answer's tokens are those of ``tokenize(prompt + answer)`` after the
  prompt's, scored by their summed log-probability. The prompt runs once; its key/value cache serves every
  multi-token answer's continuation.
- Prefix templates (encoder-decoders): the encoder reads the prompt once; the answers are scored as the
  decoder's first tokens.

``score_example`` scores one input (the lab's scoring view); ``score_batch`` several, with the forward
passes of ``lm_workbench.engine.prompting.forward`` shared by the whole batch (evaluation, calibration).

An answer's score is its summed log-probability, or the mean per token with ``length_normalise``. A label's
log-score is the log of the summed probabilities of its answers (log-sum-exp of their scores); the label
probabilities are the softmax of the label log-scores. Demonstrations come before the query in the same
prompt; those that do not fit the model's window are dropped, first ones first, and the result says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.predictions import Candidate
from lm_workbench.engine.prompting.fewshot import SEPARATOR, Demonstration, demonstrations_text
from lm_workbench.engine.prompting.forward import cloze_log_probs, decoder_log_probs, encoder_decoder_log_probs
from lm_workbench.engine.prompting.names import MULTI_TOKEN
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import AnswerTokens, Verbalizer, answer_token_ids, split_space


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


def _answers(loaded: Any, verbalizer: Verbalizer, before: str) -> list[tuple[str, str, list[int]]]:
    enc_dec = loaded.family is Family.ENCODER_DECODER
    return [(label, word, answer_token_ids(loaded.tokenizer, before, word, encoder_decoder=enc_dec))
            for label, words in verbalizer.answers for word in words]


# ---------------------------------------------------------------- one example


def answer_tokenizations(loaded: Any, template: Template, verbalizer: Verbalizer, x: str = "",
                         x2: str | None = None) -> list[AnswerTokens]:
    """Every answer's tokens as they will be scored after this template's text (and input ``x``)."""
    before, _ = template.split(x, x2 if x2 is not None or not template.is_pair else "")
    return verbalizer.tokenizations(loaded.tokenizer, template.mode, before,
                                    encoder_decoder=loaded.family is Family.ENCODER_DECODER)


@dataclass(frozen=True)
class PromptInput:
    """One input to score: its text(s) and the demonstrations shown before it."""

    x: str
    x2: str | None = None
    demonstrations: tuple[Demonstration, ...] = ()


def score_batch(loaded: Any, template: Template, verbalizer: Verbalizer, inputs: Sequence[PromptInput], *,
                multi_token: str = "left-to-right", length_normalise: bool = False, top_k: int = 10,
                separator: str = SEPARATOR) -> list[ScoredPrompt]:
    """``score_example`` for several inputs with batched forward passes (evaluation and calibration)."""
    check_model_for(loaded, template)
    check_multi_token(multi_token)
    if not inputs:
        return []
    tokenizer = loaded.tokenizer
    prompts, answers = [], []
    for item in inputs:
        before, _ = template.split(item.x, item.x2)
        longest = max(len(ids) for _, _, ids in _answers(loaded, verbalizer, before))
        prompt = _fit(loaded, template, verbalizer, item.x, item.x2, item.demonstrations, separator, longest)
        prompts.append(prompt)
        answers.append(_answers(loaded, verbalizer, prompt.before))
    answer_ids = [[ids for _, _, ids in a] for a in answers]
    if template.mode == "cloze":
        tokenized = [_cloze_ids(tokenizer, p) for p in prompts]
        scored = cloze_log_probs(loaded, [(ids, slot, a) for (ids, slot), a in zip(tokenized, answer_ids)],
                                 multi_token, top_k)
        positions = [[slot] for _, slot in tokenized]
        token_ids = [ids for ids, _ in tokenized]
    elif loaded.family is Family.ENCODER_DECODER:
        token_ids = [_encoder_ids(tokenizer, p.before) for p in prompts]
        scored = encoder_decoder_log_probs(loaded, list(zip(token_ids, answer_ids)), top_k)
        positions = [[0] for _ in prompts]
    else:
        token_ids = [decoder_prompt_ids(tokenizer, p.before) for p in prompts]
        scored = decoder_log_probs(loaded, list(zip(token_ids, answer_ids)), top_k)
        positions = [[len(ids)] for ids in token_ids]
    out = []
    for prompt, ids, where, example_answers, (scores, top) in zip(prompts, token_ids, positions, answers, scored):
        per_answer = [_answer_score(label, word, aids, s, tokenizer, length_normalise)
                      for (label, word, aids), s in zip(example_answers, scores)]
        label_scores, label_probs = _labels(verbalizer, per_answer)
        out.append(ScoredPrompt(tokenizer.decode(ids, skip_special_tokens=False), ids,
                                tokenizer.convert_ids_to_tokens(ids), where, verbalizer.labels, label_scores,
                                label_probs, per_answer, top, prompt.used, prompt.dropped))
    return out


def score_example(loaded: Any, template: Template, verbalizer: Verbalizer, x: str, x2: str | None = None,
                  demonstrations: Sequence[Demonstration] = (), *, multi_token: str = "left-to-right",
                  length_normalise: bool = False, top_k: int = 10, separator: str = SEPARATOR) -> ScoredPrompt:
    """Score every label of ``verbalizer`` for input ``x`` (and ``x2``) under ``template``, after the
    ``demonstrations`` (each the template filled with its label's first answer, then ``separator``)."""
    return score_batch(loaded, template, verbalizer, [PromptInput(x, x2, tuple(demonstrations))],
                       multi_token=multi_token, length_normalise=length_normalise, top_k=top_k,
                       separator=separator)[0]

"""Streaming generation for the prompting lab, through the shared decoding function (``lm_workbench.engine.decoding``).

``generate_job`` is a job generator: it yields ``Partial(GeneratedToken)`` for every new token (its id,
its text as it extends the output, and its probability under the distribution it was drawn from) so a view
can show tokens as they come, checks the cancel token between tokens, and returns a ``Generation``.
Greedy decoding when ``sampling`` is None; otherwise temperature, top-k, top-p and a seed. Generation stops
at the end-of-sequence token, at ``max_new_tokens``, or once the text contains one of the stop strings (the
text is cut before it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generator, Sequence

from lm_workbench.engine.decoding import SamplingConfig, decode_job
from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial
from lm_workbench.engine.text_input import require_text


@dataclass(frozen=True)
class GeneratedToken:
    index: int
    id: int
    text: str  # what this token adds to the decoded output ("" for a special token)
    prob: float

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "text": self.text, "prob": self.prob}


@dataclass
class Generation:
    prompt_ids: list[int]
    token_ids: list[int]
    text: str
    tokens: list[GeneratedToken] = field(default_factory=list)
    stopped_by: str = "max tokens"  # "eos", "stop string", "max tokens" or "window"

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_ids": self.prompt_ids, "token_ids": self.token_ids, "text": self.text,
                "probs": [t.prob for t in self.tokens], "tokens": [t.to_dict() for t in self.tokens],
                "stopped_by": self.stopped_by}


def check_generation(loaded: Any, max_new_tokens: int, sampling: SamplingConfig | None) -> None:
    info = loaded.info
    if loaded.family not in (Family.DECODER, Family.ENCODER_DECODER) or not info.has_lm_head:
        raise MissingHeadError(f"generation needs a decoder or an encoder-decoder with its LM head; {info.spec} "
                               f"is {'an' if loaded.family.value[0] in 'ae' else 'a'} {loaded.family.value}"
                               f"{'' if info.has_lm_head else ' without one'}")
    if max_new_tokens < 1:
        raise WorkbenchError(f"max new tokens must be at least 1, not {max_new_tokens}")
    if sampling is not None:
        if sampling.temperature <= 0:
            raise WorkbenchError(f"the temperature must be above 0, not {sampling.temperature} "
                                 "(use greedy decoding for the most probable token)")
        if sampling.top_k < 0:
            raise WorkbenchError(f"top-k must be 0 (off) or more, not {sampling.top_k}")
        if not 0 < sampling.top_p <= 1:
            raise WorkbenchError(f"top-p must be in (0, 1], not {sampling.top_p}")


def prompt_token_ids(loaded: Any, text: str) -> list[int]:
    """The ids the model starts from: a decoder's prompt, or an encoder-decoder's source."""
    require_text(text, "prompt")
    ids = list(loaded.tokenizer(text)["input_ids"])
    if not ids:
        raise WorkbenchError("the prompt gives no tokens for this model")
    window = loaded.info.max_positions
    if window and len(ids) >= window and loaded.family is Family.DECODER:
        raise WorkbenchError(f"the prompt is {len(ids)} tokens long and the model reads {window}: "
                             "there is no room left to generate; shorten it")
    if window and len(ids) > window:
        raise WorkbenchError(f"the prompt is {len(ids)} tokens long and the model reads {window}; shorten it")
    return ids


def generate_job(loaded: Any, text: str, *, max_new_tokens: int = 40, sampling: SamplingConfig | None = None,
                   stop: Sequence[str] = (), cancel: CancelToken = NEVER_CANCELLED
                   ) -> Generator[Partial, None, Generation]:
    """Generate after ``text`` token by token (see the module docstring)."""
    check_generation(loaded, max_new_tokens, sampling)
    ids = prompt_token_ids(loaded, text)
    window = loaded.info.max_positions
    budget = max_new_tokens
    if window and loaded.family is Family.DECODER:
        budget = min(budget, window - len(ids))
    elif window:
        budget = min(budget, window)
    tokenizer = loaded.tokenizer
    stops = [s for s in stop if s]
    out = Generation(ids, [], "")
    steps = decode_job(loaded.model, loaded.family, ids, tokenizer=tokenizer, max_new_tokens=budget,
                         sampling=sampling, cancel=cancel)
    for step in steps:
        out.token_ids.append(step.token_id)
        text_now = tokenizer.decode(out.token_ids, skip_special_tokens=True)
        piece = (text_now[len(out.text):] if text_now.startswith(out.text)
                 else tokenizer.decode([step.token_id], skip_special_tokens=True))  # a byte completed a char
        token = GeneratedToken(step.index, step.token_id, piece, step.prob)
        out.tokens.append(token)
        out.text = text_now
        yield Partial(token)
        hit = [text_now.find(s) for s in stops if s in text_now]
        if hit:
            out.text = text_now[:min(hit)]
            out.stopped_by = "stop string"
            steps.close()
            return out
    if len(out.token_ids) < budget:
        out.stopped_by = "eos"
    elif budget < max_new_tokens:
        out.stopped_by = "window"
    return out

"""The engine questions a Guide exercise names: what answers it, computed from the model at that moment (no Qt).

A question is one of two things:

- a **metric** of the page's view (``lm_workbench.lectures.metrics``, what lecture claims read): a number
  exercise asks for its value; a choose exercise's options are metrics, the answer the option whose value is
  largest (or smallest); a click exercise may name an index metric (``best_layer``, ``top_position``);
- a **question** of this module (``QUESTIONS``), for answers that are a cell or a token: which layer, which
  head, which token. Each computes the step through the view's own functions (the metric modules' builders,
  which call the view's jobs), and explains the answer from the model ("layer 2 is most accurate: 0.81; layer
  1: 0.64").

``expected(run, exercise)`` returns an ``Expected``: the answer, how to show it, the explanation, and every
value a student's answer is compared with (a tie accepts each tied answer). A ``WorkbenchError`` says why the
step cannot be computed on this model (no MLM head, a token that is not one token here, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import StepRun, finite, token_index

INDEX_METRICS = {"best_layer": "click-layer", "layer": "click-layer", "top_position": "click-token"}
TIE = 1e-9


@dataclass(frozen=True)
class Expected:
    value: Any  # the answer: int layer, (layer, head), int token position, option label, float, token text
    shown: str  # the answer as a student reads it ("layer 2", "head 1.3", "' instance'", "0.15")
    explanation: str  # why, from the model
    accepted: tuple[Any, ...] = ()  # every answer that counts as right (ties); empty: ``value`` only
    tokens: tuple[str, ...] = ()  # click-token: the tokens to click among
    grid: tuple[int, int] = (0, 0)  # click-layer / click-head: (layers, heads) to click among

    def to_json(self) -> Any:
        return list(self.value) if isinstance(self.value, tuple) else self.value


@dataclass(frozen=True)
class Question:
    view: str
    name: str
    kind: str  # the exercise kind it answers
    fn: Callable[[StepRun, dict[str, Any]], Expected]
    help: str
    args: dict[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()


def _fmt(value: float | None) -> str:
    """A number as a student reads it: whole numbers in full (74,498), others to 4 significant digits."""
    if value is None:
        return "null"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:.4g}"


def _ranked(values: list[float], labels: list[str], n: int = 3) -> str:
    order = sorted(range(len(values)), key=lambda i: -values[i])[:n]
    return "; ".join(f"{labels[i]}: {values[i]:.3g}" for i in order)


def _best(values: list[float]) -> tuple[int, tuple[int, ...]]:
    top = max(values)
    tied = tuple(i for i, v in enumerate(values) if abs(v - top) <= TIE)
    return tied[0], tied


# -- probing ------------------------------------------------------------------------------------------------
def _probe_layer(field_name: str, what: str) -> Callable[[StepRun, dict[str, Any]], Expected]:
    def fn(run: StepRun, args: dict[str, Any]) -> Expected:
        from lm_workbench.lectures.metrics.probing import _compute

        result = _compute(run, "probe")
        values, layers = list(getattr(result, field_name)), list(result.layers)
        best, tied = _best(values)
        names = [f"layer {layer}" for layer in layers]
        return Expected(layers[best], f"layer {layers[best]}", f"{what}, layer by layer, best first: "
                        f"{_ranked(values, names)} (majority baseline {result.majority:.3g})",
                        tuple(layers[i] for i in tied), grid=(len(layers), 0))

    return fn


def mix_top_layer(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.probing import _compute

    mix = _compute(run, "mix")
    weights, layers = list(mix.result.weights), list(mix.layers)
    best, tied = _best(weights)
    return Expected(layers[best], f"layer {layers[best]}", "the scalar mix's weights, largest first: "
                    f"{_ranked(weights, [f'layer {x}' for x in layers])} (expected layer "
                    f"{mix.result.expected_layer:.2f})", tuple(layers[i] for i in tied), grid=(len(layers), 0))


# -- patching -----------------------------------------------------------------------------------------------
def patching_best_layer(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.patching import _result

    r = _result(run)
    column = token_index(r.tokens, args["token"])
    values = [float(r.effect[layer][column]) for layer in range(len(r.effect))]
    best, tied = _best(values)
    return Expected(best, f"layer {best}", f"patching {r.tokens[column]!r} recovers, layer by layer: "
                    f"{_ranked(values, [f'layer {i}' for i in range(len(values))])}", tied,
                    grid=(len(values), 0))


# -- heads --------------------------------------------------------------------------------------------------
def _head_answer(rows: list[list[float]], sign: float, what: str) -> Expected:
    cells = [(sign * v, layer, head) for layer, row in enumerate(rows) for head, v in enumerate(row)]
    top = max(c[0] for c in cells)
    tied = tuple((layer, head) for v, layer, head in cells if abs(v - top) <= TIE)
    ranked = sorted(cells, reverse=True)[:3]
    listing = "; ".join(f"head {layer}.{head}: {sign * v:+.3g}" for v, layer, head in ranked)
    layer, head = tied[0]
    return Expected((layer, head), f"head {layer}.{head} (layer {layer}, head {head})", f"{what}: {listing}",
                    tied, grid=(len(rows), len(rows[0]) if rows else 0))


def largest_drop_head(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.heads import _changes

    return _head_answer(_changes(run), -1.0, "ablating one head at a time, the difference changes most by")


def largest_dla_head(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.heads import _dla

    return _head_answer([list(map(float, row)) for row in _dla(run).attn], 1.0,
                        "each head's direct share of logit(target) − logit(contrast)")


# -- attention ----------------------------------------------------------------------------------------------
def most_attended(run: StepRun, args: dict[str, Any]) -> Expected:
    """The token the step's layer and first chosen head attend to most from the ``query`` token."""
    from lm_workbench.lectures.metrics.attention import _layer_head, _side

    encoding, side = _side(run)
    layer, head = _layer_head(run)
    tokens = list(encoding.tokenized.tokens)
    query = token_index(tokens, args["query"], "query token")
    row = [float(w) for w in side.weights[layer, head, query]]
    best, tied = _best(row)
    return Expected(best, f"{tokens[best]!r} (position {best})", f"layer {layer}, head {head}: from "
                    f"{tokens[query]!r} the weights, largest first: {_ranked(row, [repr(t) for t in tokens])}",
                    tied, tokens=tuple(tokens))


# -- predictions --------------------------------------------------------------------------------------------
def top_token(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.predictions import _predictions

    cands = _predictions(run)["candidates"]
    if not cands:
        raise WorkbenchError("this model's output has no ranked next token here (an encoder-decoder writes a "
                             "whole output)")
    listing = "; ".join(f"{c.token!r}: {c.prob:.3g}" for c in cands[:3])
    return Expected(cands[0].token, repr(cands[0].token), f"the model's top predictions: {listing}")


def top_position(run: StepRun, args: dict[str, Any]) -> Expected:
    from lm_workbench.lectures.metrics.predictions import _explanation

    a = _explanation(run).attribution
    scores = [float(s) for s in a.scores]
    best, tied = _best(scores)
    return Expected(best, f"{a.tokens[best]!r} (position {best})", f"{a.method} scores, largest first: "
                    f"{_ranked(scores, [repr(t) for t in a.tokens])}", tied, tokens=tuple(a.tokens))


# -- tokens and the logit lens ------------------------------------------------------------------------------
def token_count(run: StepRun, args: dict[str, Any]) -> Expected:
    """How many tokens the model reads the step's text as (special tokens included), as the Tokens view lists."""
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.models.view_tasks import tokenize_job

    tt = run.once("tokens", lambda: tokenize_job(run.loaded, run.text(), run.inputs.get("pair") or None,
                                                 NEVER_CANCELLED))
    tokens = list(tt.tokens)
    return Expected(float(len(tokens)), str(len(tokens)), f"{len(tokens)} tokens: {' '.join(tokens)}")


def lens_first_layer(run: StepRun, args: dict[str, Any]) -> Expected:
    """The first layer whose logit-lens top token at the last position is the model's own final one."""
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.lens.view_tasks import read_lenses

    both = run.once("lens", lambda: read_lenses(run.loaded, run.text(), None, None, NEVER_CANCELLED))
    table = both.logit
    column = [row[-1][0].token for row in table.top]
    final = column[-1]
    first = next(i for i, t in enumerate(column) if t == final)
    path = " → ".join(f"{i}:{t!r}" for i, t in enumerate(column))
    return Expected(first, f"layer {first}", f"the last position's top token layer by layer: {path}",
                    grid=(len(column), 0))


QUESTIONS: dict[tuple[str, str], Question] = {(q.view, q.name): q for q in (
    Question("probing", "best_layer", "click-layer", _probe_layer("accuracy", "the probe's held-out accuracy"),
             "the layer whose probe is most accurate"),
    Question("probing", "best_selectivity_layer", "click-layer",
             _probe_layer("selectivity", "accuracy − control-task accuracy"), "the layer with the largest "
             "selectivity (Hewitt & Liang 2019)"),
    Question("probing", "mix_top_layer", "click-layer", mix_top_layer, "the layer the scalar mix weighs most"),
    Question("patching", "best_layer", "click-layer", patching_best_layer, "the layer whose patch at a token "
             "recovers most", {"token": "the clean text's token (text or index)"}, ("token",)),
    Question("heads", "largest_drop_head", "click-head", largest_drop_head, "the head whose ablation lowers "
             "the difference most"),
    Question("heads", "largest_dla_head", "click-head", largest_dla_head, "the head with the largest direct "
             "share of the difference"),
    Question("attention", "most_attended", "click-token", most_attended, "the token the step's head attends "
             "to most from a query token", {"query": "the query token (text or index)"}, ("query",)),
    Question("predictions", "top_token", "token", top_token, "the model's top prediction (next token, or the "
             "first mask's filler)"),
    Question("predictions", "top_position", "click-token", top_position, "the input token Explain scores "
             "highest"),
    Question("tokens", "token_count", "number", token_count, "how many tokens the model reads the text as"),
    Question("lens", "first_layer", "click-layer", lens_first_layer, "the first layer whose logit-lens top "
             "token at the last position is the model's final prediction"),
)}


def check_question(view: str, exercise: Any, needs: str = "") -> str:
    """"" when ``exercise`` (a page's ``Exercise``) can be answered on ``view``; else what is wrong (one line)."""
    from lm_workbench.lectures.metrics import REGISTRY, check_metric

    if exercise.kind == "choose":
        for option in exercise.options:
            problem = check_metric(view, option.metric, dict(option.args))
            if problem:
                return f"option {option.label!r}: {problem}"
        return ""
    question = QUESTIONS.get((view, exercise.question))
    if question is not None:
        if question.kind != exercise.kind:
            return f"question: {view}'s {exercise.question} answers a {question.kind} exercise, not {exercise.kind}"
        unknown = sorted(set(exercise.args) - set(question.args))
        if unknown:
            return f"question: {exercise.question} takes no argument {', '.join(unknown)}"
        missing = [a for a in question.required if a not in exercise.args]
        if missing:
            return f"question: {exercise.question} needs the argument(s) {', '.join(missing)}"
        return ""
    if view in REGISTRY and exercise.question in REGISTRY[view].metrics:
        wanted = INDEX_METRICS.get(exercise.question, "number")
        if exercise.kind not in (wanted, "number"):
            return (f"question: the metric {exercise.question} answers a {wanted} or number exercise, not "
                    f"{exercise.kind}")
        problem = check_metric(view, exercise.question, dict(exercise.args))
        return f"question: {problem}" if problem else ""
    own = sorted(q.name for (v, _n), q in QUESTIONS.items() if v == view)
    metrics = sorted(REGISTRY[view].metrics) if view in REGISTRY else []
    return (f"question: unknown question {exercise.question!r} for the {view!r} view (questions: "
            f"{', '.join(own + metrics) or 'none'})")


def expected(run: StepRun, exercise: Any) -> Expected:
    """The right answer to ``exercise`` on the step ``run`` (its model as loaded now), with its explanation."""
    from lm_workbench.lectures.metrics import metric_value

    if exercise.kind == "choose":
        values = [metric_value(run, o.metric, dict(o.args)) for o in exercise.options]
        labels = [o.label for o in exercise.options]
        if any(v is None for v in values):
            raise WorkbenchError("an option's value cannot be computed on this model: "
                                 + ", ".join(f"{lab}: {_fmt(v)}" for lab, v in zip(labels, values)))
        sign = 1.0 if exercise.pick == "largest" else -1.0
        best, tied = _best([sign * v for v in values])
        listing = "; ".join(f"{lab}: {_fmt(v)}" for lab, v in zip(labels, values))
        return Expected(labels[best], labels[best], f"{exercise.pick} is {labels[best]} ({listing})",
                        tuple(labels[i] for i in tied))
    question = QUESTIONS.get((run.view, exercise.question))
    if question is not None:
        return question.fn(run, dict(exercise.args))
    value = metric_value(run, exercise.question, dict(exercise.args))
    if value is None:
        raise WorkbenchError(f"{exercise.question} cannot be computed on this model (not a finite number)")
    if exercise.kind == "click-layer":
        return Expected(int(value), f"layer {int(value)}", f"{exercise.question} = {int(value)} on this model")
    if exercise.kind == "click-token":
        return Expected(int(value), f"position {int(value)}", f"{exercise.question} = {int(value)} on this model")
    return Expected(float(finite(value)), _fmt(value), f"{exercise.question} = {_fmt(value)} on this model")

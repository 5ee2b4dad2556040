"""What every view's metrics share: ``Metric``, ``ViewMetrics`` and ``StepRun`` (no Qt; torch only inside jobs).

A ``StepRun`` is one lecture step's computation as its view does it: the step's view, settings and inputs (with
``course:``, ``preset-data:`` and ``file:`` references already resolved), the model spec it runs on and a
loader for it, and a cache, so the several metrics of one step (and the claims of other steps that refer to
it) share one computation. A metric is a function ``fn(run, args) -> float | None`` (None: not computable on
this result, e.g. NaN; the caller says so); it raises ``WorkbenchError`` when the step cannot be computed on
this model (a token it names is not one token there, the model has no MLM head, ...), as the view would show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError

Loader = Callable[[str], Any]  # model spec -> LoadedModel


@dataclass(frozen=True)
class Metric:
    name: str
    fn: Callable[["StepRun", dict[str, Any]], float | None]
    help: str
    args: dict[str, str] = field(default_factory=dict)  # argument -> what it means
    required: tuple[str, ...] = ()

    def check_args(self, args: dict[str, Any]) -> str:
        """"" when ``args`` fit this metric, else why not (one line)."""
        unknown = sorted(set(args) - set(self.args))
        if unknown:
            allowed = ", ".join(sorted(self.args)) or "none"
            return f"{self.name} takes no argument {', '.join(unknown)} (arguments: {allowed})"
        missing = [a for a in self.required if a not in args]
        if missing:
            return f"{self.name} needs the argument(s) {', '.join(missing)} ({'; '.join(self.args[a] for a in missing)})"
        return ""


@dataclass(frozen=True)
class ViewMetrics:
    """The metrics a view's result offers to claims."""

    view: str
    metrics: dict[str, Metric]


def metrics_of(view: str, *metrics: Metric) -> ViewMetrics:
    return ViewMetrics(view, {m.name: m for m in metrics})


class StepRun:
    """One step, computed as its view computes it (lazily: a metric asks for what it needs, ``once`` keeps it)."""

    def __init__(self, view: str, settings: dict[str, Any], inputs: dict[str, Any], model: str, loader: Loader, *,
                 index: int = 0, earlier: Callable[[], list["StepRun"]] | None = None, workdir: str = "") -> None:
        """``index``: the step's 0-based place in its preset; ``earlier()``: the preset's steps before it (a step
        that starts from "the last run" looks there, as the view looks at its own earlier runs); ``workdir``: a
        folder for what a step trains (empty: a temporary folder of the system)."""
        self.view, self.settings, self.inputs, self.model = view, dict(settings), dict(inputs), model
        self.index, self.workdir = index, workdir
        self._loader = loader
        self._earlier = earlier or (lambda: [])
        self._cache: dict[Any, Any] = {}

    def earlier(self) -> list["StepRun"]:
        """The preset's steps before this one, in order."""
        return self._earlier()

    @property
    def loaded(self) -> Any:
        """The step's model, loaded (the loader keeps each model once)."""
        return self._loader(self.model)

    def text(self) -> str:
        return str(self.inputs.get("text") or "")

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per step and ``key``; an error is kept and raised again."""
        if key not in self._cache:
            try:
                self._cache[key] = ("ok", compute())
            except WorkbenchError as exc:
                self._cache[key] = ("error", exc)
        kind, value = self._cache[key]
        if kind == "error":
            raise value
        return value


def finite(value: Any) -> float | None:
    """``value`` as a float, None for NaN, infinity or None."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def int_arg(args: dict[str, Any], name: str, default: int | None = None) -> int:
    value = args.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorkbenchError(f"the argument {name} must be a whole number, not {value!r}")
    return value


def index_in(index: int, count: int, what: str) -> int:
    """A 0-based index into ``count`` items; negative counts from the end (-1: the last)."""
    if not -count <= index < count:
        raise WorkbenchError(f"there is no {what} {index} (there are {count}; -1 is the last)")
    return index % count


def token_index(tokens: list[str], token: Any, what: str = "token") -> int:
    """The column of ``token``: an index (negative from the end) or the first token whose text, without the
    tokenizer's word marks (Ġ, ▁, ##) and spaces, is ``token`` (case-insensitive)."""
    if isinstance(token, int) and not isinstance(token, bool):
        return index_in(token, len(tokens), what)
    wanted = _bare(str(token))
    for i, t in enumerate(tokens):
        if _bare(t) == wanted:
            return i
    raise WorkbenchError(f"there is no {what} {token!r} among {', '.join(map(repr, tokens))}")


def _bare(token: str) -> str:
    t = token.replace("Ġ", " ").replace("▁", " ")
    if t.startswith("##"):
        t = t[2:]
    return t.strip().lower()

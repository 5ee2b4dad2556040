"""A Guide page file ("lm-workbench-guide/1") and its parser: line by line, so every refusal names its line.

A page file is a header of ``key: value`` lines, a line ``---``, then the page's text (at most
``MAX_WORDS`` words, shown beside the live view)::

    format: lm-workbench-guide/1
    id: bank-senses                      # stable: progress is kept by it (lower-case, digits, dashes)
    title: Two senses of "bank"
    lecture: 1                           # 1..5, the lecture it belongs to
    preset: static-vs-contextual 2       # optional: start from a built-in preset's step (view, inputs, settings)
    view: embeddings                     # the view the page sets up (a view id), unless the preset step gives it
    model: default                       # a model spec, "default", "course:<family>" (a preset's model)
    needs: encoder mlm                   # optional: families (encoder decoder encoder-decoder biLM), mlm, lm
    text: The bank of the river.         # the text box (inputs.text); pair: the second sentence
    settings: {"layer": "6"}             # JSON on one line: the view's settings, as a preset step's
    exercise: choose                     # click-layer | click-head | click-token | choose | number | token
    ask: Which is closer ...?            # the question as the student reads it
    question: same_sense_share           # the engine question that answers it (see questions.py)
    args: {"of": "static"}               # JSON: the question's arguments
    option: Static = same_sense_share {"of": "static"}   # choose: one line per option (label = metric {args})
    pick: largest                        # choose: the option whose metric is largest (or smallest)
    tolerance: 0.01                      # number: absolute, or "5%" of the expected value
    hint: ...                            # one per line, shown one after each wrong try
    ---
    The text of the page.

The view settings become a ``PresetStep`` (the lecture presets' schema checks them), so a page drives its view as
a preset step does. The exercise names no answer: it is computed from the loaded model when checked. A page
that names an unknown view, setting, question or key is refused with ``<file>:<line>: <what>``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from lm_workbench.engine.errors import WorkbenchError

FORMAT = "lm-workbench-guide/1"
MAX_WORDS = 150
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
KINDS = ("click-layer", "click-head", "click-token", "choose", "number", "token")
FAMILIES = ("encoder", "decoder", "encoder-decoder", "biLM")
NEEDS = FAMILIES + ("mlm", "lm")
PICKS = ("largest", "smallest")
LECTURES = {1: "Contextual representations and ELMo", 2: "Pre-trained encoders: BERT and its kin",
            3: "Encoder-decoders and decoders: BART, T5, GPT", 4: "Using pre-trained models",
            5: "Sentence encoders, instructions and preferences"}
_SINGLE = {"format", "id", "title", "lecture", "preset", "view", "model", "needs", "text", "pair", "corpus",
           "settings", "exercise", "ask", "question", "args", "pick", "tolerance"}
_MULTI = {"option", "hint"}


class GuideError(WorkbenchError):
    """A guide or page file that does not follow the format (the message names the file and line)."""


@dataclass(frozen=True)
class Option:
    label: str
    metric: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Exercise:
    kind: str  # one of KINDS
    ask: str
    question: str  # the engine question (a view's metric or one of questions.py's)
    args: dict[str, Any] = field(default_factory=dict)
    options: tuple[Option, ...] = ()  # choose
    pick: str = "largest"  # choose
    tolerance: float | None = None  # number: absolute
    relative: bool = False  # number: the tolerance is a share of the expected value
    hints: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "ask": self.ask, "question": self.question, "args": dict(self.args),
                               "hints": list(self.hints)}
        if self.options:
            out["options"] = [o.label for o in self.options]
            out["pick"] = self.pick
        if self.tolerance is not None:
            out["tolerance"] = f"{self.tolerance * 100:g}%" if self.relative else self.tolerance
        return out


@dataclass(frozen=True)
class Page:
    id: str
    title: str
    lecture: int
    body: str
    step: Any  # lm_workbench.lectures.schema.PresetStep: the view, inputs, settings and model it sets up
    model: str | tuple[str, ...]
    needs: tuple[str, ...] = ()
    exercise: Exercise | None = None
    source: str = ""
    digest: str = ""  # of the file's text: a page that changed since a student's try says so

    @property
    def view(self) -> str:
        return self.step.view

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "lecture": self.lecture, "lecture_title": LECTURES[self.lecture],
                "text": self.body, "view": self.view, "model": self.model if isinstance(self.model, str)
                else list(self.model), "needs": list(self.needs), "inputs": dict(self.step.inputs),
                "settings": dict(self.step.settings),
                "exercise": self.exercise.to_json() if self.exercise else None, "source": self.source,
                "version": self.digest}


def _fail(source: str, line: int, message: str) -> GuideError:
    return GuideError(f"{source}:{line}: {message}")


def _json(value: str, source: str, line: int, key: str) -> Any:
    try:
        return json.loads(value)
    except ValueError as exc:
        raise _fail(source, line, f"{key}: not valid JSON ({exc.msg})") from None


def _option(value: str, source: str, line: int) -> Option:
    label, eq, rest = value.partition("=")
    if not eq or not label.strip() or not rest.strip():
        raise _fail(source, line, 'option: write "label = metric" or "label = metric {json args}"')
    metric, _, raw = rest.strip().partition(" ")
    args = _json(raw.strip(), source, line, "option") if raw.strip() else {}
    if not isinstance(args, dict):
        raise _fail(source, line, "option: the arguments must be a JSON object")
    return Option(label.strip(), metric.strip(), args)


Header = tuple[dict[str, tuple[int, str]], dict[str, list[tuple[int, str]]], str, int]


def read_header(text: str, source: str, keys: set[str] | None = None) -> Header:
    """(single keys -> (line, value), repeated keys -> [(line, value)], the body, the separator's line);
    ``keys``: the single keys allowed (default: a page's)."""
    allowed = _SINGLE if keys is None else keys
    single: dict[str, tuple[int, str]] = {}
    multi: dict[str, list[tuple[int, str]]] = {k: [] for k in _MULTI}
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line == "---":
            return single, multi, "\n".join(lines[number:]).strip(), number
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon:
            raise _fail(source, number, f"expected 'key: value' (or --- before the page's text), not {line[:40]!r}")
        if key in _MULTI and keys is None:
            multi[key].append((number, value.strip()))
        elif key in allowed:
            if key in single:
                raise _fail(source, number, f"{key}: given twice (first on line {single[key][0]})")
            single[key] = (number, value.strip())
        else:
            known = sorted(allowed | (_MULTI if keys is None else set()))
            raise _fail(source, number, f"unknown key {key!r} (keys: {', '.join(known)})")
    raise _fail(source, len(lines) or 1, "no --- line before the page's text")


def parse_page(text: str, source: str, views: Mapping[str, frozenset[str]] | None,
               check_question: Callable[[str, "Exercise", str], str],
               find_step: Callable[[str, int], Any] | None = None) -> Page:
    """A page from its file's text; ``views``: the window's views (id -> the setting keys each applies; None
    with no window installed: the views with metrics); ``check_question(view, exercise, family)`` says what is
    wrong with an exercise's question ("" when fine); ``find_step(preset, n)`` a built-in preset's step n."""
    from lm_workbench.lectures.metrics import REGISTRY
    from lm_workbench.lectures.schema import PresetError, parse_preset

    single, multi, body, separator = read_header(text, source)

    def get(key: str, required: bool = True) -> tuple[int, str]:
        if key not in single:
            if required:
                raise _fail(source, separator, f"{key}: is missing")
            return 0, ""
        line, value = single[key]
        if required and not value:
            raise _fail(source, line, f"{key}: is empty")
        return line, value

    line, fmt = get("format")
    if fmt != FORMAT:
        newer = fmt.startswith("lm-workbench-guide/")
        what = "a newer format than this version reads" if newer else "not a guide page"
        raise _fail(source, line, f"format: {fmt!r} is {what} ({FORMAT})")
    line, page_id = get("id")
    if not ID_PATTERN.match(page_id):
        raise _fail(source, line, "id: lower-case letters, digits and dashes (at most 64)")
    _l, title = get("title")
    line, lecture = get("lecture")
    if lecture not in {str(k) for k in LECTURES}:
        raise _fail(source, line, f"lecture: one of {', '.join(map(str, LECTURES))}, not {lecture!r}")
    if not body:
        raise _fail(source, separator, "the page has no text after ---")
    words = len(body.split())
    if words > MAX_WORDS:
        raise _fail(source, separator + 1, f"the page's text has {words} words (at most {MAX_WORDS})")

    step: dict[str, Any] = {}
    model: Any = None
    line, preset_ref = get("preset", required=False)
    if preset_ref:
        name, _, number = preset_ref.partition(" ")
        if find_step is None or not number.strip().isdigit():
            raise _fail(source, line, "preset: write 'name step' (a built-in preset and its step, from 1)")
        try:
            base, base_model = find_step(name.strip(), int(number))
        except WorkbenchError as exc:
            raise _fail(source, line, f"preset: {exc}") from None
        step = {"view": base.view, "caption": title, "inputs": dict(base.inputs), "settings": dict(base.settings)}
        model = base.model if base.model is not None else base_model
    line, view = get("view", required=not preset_ref)
    if view:
        step = {"view": view, "caption": title, "inputs": step.get("inputs", {}), "settings": step.get(
            "settings", {})} if step.get("view") == view else {"view": view, "caption": title}
    view = step["view"]
    view_line = line or get("preset", required=False)[0]
    known = set(views) if views is not None else set(REGISTRY) | {"tokens", "lens", "prompting"}
    if view not in known:
        raise _fail(source, view_line, f"view: unknown view {view!r} (views: {', '.join(sorted(known))})")
    inputs = dict(step.get("inputs", {}))
    for key in ("text", "pair"):
        if key in single:
            inputs[key] = single[key][1]
    if "corpus" in single:
        line, raw = single["corpus"]
        inputs["corpus"] = raw if raw == "demo" else _json(raw, source, line, "corpus")
    settings = dict(step.get("settings", {}))
    if "settings" in single:
        line, raw = single["settings"]
        more = _json(raw, source, line, "settings")
        if not isinstance(more, dict):
            raise _fail(source, line, "settings: must be a JSON object")
        settings.update(more)
        if views is not None:
            unknown = sorted(set(more) - set(views.get(view, frozenset())))
            if unknown:
                allowed = ", ".join(sorted(views.get(view, ()))) or "none"
                raise _fail(source, line, f"settings: the {view!r} view has no setting {', '.join(unknown)} "
                                          f"(settings: {allowed})")
    line, own_model = get("model", required=model is None)
    model_line = line
    if own_model:
        model = own_model
    raw_step = {"view": view, "caption": title[:200], "inputs": inputs, "settings": settings}
    try:
        preset = parse_preset({"format": "lm-workbench-preset/2", "name": page_id, "title": title[:200],
                               "model": list(model) if isinstance(model, tuple) else model, "steps": [raw_step]},
                              source)
    except PresetError as exc:
        where = single.get("settings", single.get("view", (model_line, "")))[0]
        raise _fail(source, where, str(exc).removeprefix(f"{source}: ")) from None
    line, needs_raw = get("needs", required=False)
    needs = tuple(needs_raw.split())
    bad = [n for n in needs if n not in NEEDS]
    if bad:
        raise _fail(source, line, f"needs: unknown {', '.join(bad)} (known: {', '.join(NEEDS)})")
    exercise = _exercise(single, multi, source, separator, view, check_question, needs)
    return Page(id=page_id, title=title, lecture=int(lecture), body=body, step=preset.steps[0], model=preset.model,
                needs=needs, exercise=exercise, source=source,
                digest=hashlib.sha256(text.encode("utf-8")).hexdigest()[:12])


def _exercise(single: dict[str, tuple[int, str]], multi: dict[str, list[tuple[int, str]]], source: str,
              separator: int, view: str, check_question: Callable[[str, Exercise, str], str],
              needs: tuple[str, ...]) -> Exercise | None:
    keys = ("ask", "question", "args", "pick", "tolerance")
    if "exercise" not in single:
        stray = [(single[k][0], k) for k in keys if k in single] + [(v[0][0], k) for k, v in multi.items() if v]
        if stray:
            line, key = min(stray)
            raise _fail(source, line, f"{key}: goes with an exercise (add 'exercise: <kind>')")
        return None
    line, kind = single["exercise"]
    if kind not in KINDS:
        raise _fail(source, line, f"exercise: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    for key in ("ask",) if kind == "choose" else ("ask", "question"):
        if not single.get(key, (0, ""))[1]:
            raise _fail(source, single.get(key, (separator, ""))[0], f"{key}: an exercise needs it")
    args: dict[str, Any] = {}
    if "args" in single:
        args = _json(single["args"][1], source, single["args"][0], "args")
        if not isinstance(args, dict):
            raise _fail(source, single["args"][0], "args: must be a JSON object")
    options = tuple(_option(v, source, n) for n, v in multi["option"])
    if kind == "choose" and len(options) < 2:
        raise _fail(source, line, "exercise: choose needs at least two 'option:' lines")
    if kind != "choose" and options:
        raise _fail(source, multi["option"][0][0], f"option: only a choose exercise has options (this is {kind})")
    pick = single.get("pick", (0, "largest"))
    if pick[1] not in PICKS:
        raise _fail(source, pick[0], f"pick: largest or smallest, not {pick[1]!r}")
    tolerance, relative = None, False
    if "tolerance" in single:
        tline, raw = single["tolerance"]
        if kind != "number":
            raise _fail(source, tline, f"tolerance: only a number exercise has one (this is {kind})")
        relative = raw.endswith("%")
        try:
            tolerance = float(raw.rstrip("%")) / (100 if relative else 1)
        except ValueError:
            tolerance = -1.0
        if not tolerance >= 0:
            raise _fail(source, tline, f"tolerance: a number at least 0 (or a percentage), not {raw!r}")
    elif kind == "number":
        raise _fail(source, line, "tolerance: a number exercise states its tolerance (e.g. 'tolerance: 0.01')")
    exercise = Exercise(kind=kind, ask=single["ask"][1], question=single.get("question", (0, "options"))[1], args=args,
                        options=options,
                        pick=pick[1], tolerance=tolerance, relative=relative,
                        hints=tuple(v for _n, v in multi["hint"] if v))
    problem = check_question(view, exercise, " ".join(needs))
    if problem:
        where = single.get("question", (line, ""))[0]
        for (number, _v), option in zip(multi["option"], options):
            if problem.startswith(f"option {option.label!r}"):
                where = number
        raise _fail(source, where, problem)
    return exercise

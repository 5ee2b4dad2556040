"""The lecture-preset schema ("lm-workbench-preset/2") and its validator.

A preset is a JSON object::

    {"format": "lm-workbench-preset/2", "name": "bert-masking", "title": "...", "description": "...",
     "model": "default" | "course:<family>" | a model spec | [candidates, first one present wins],
     "steps": [{"view": "masking_lab", "caption": "one line", "inputs": {"text": "...", "pair": "...",
                "corpus": "demo" | {"lines": [...], "labels": [...], "label_name": "sense"}},
                "settings": {...}, "model": "optional override",
                "claims": [{"text": "...", "metric": "selected", "op": "~=", "value": 0.15, "tolerance": 0.01}]}]}

Version 2 adds a step's ``claims`` (``lm_workbench.lectures.claims``: what the caption says the view shows, as
a predicate over one of the view's metrics, ``lm_workbench.lectures.metrics``); version 1 files (no claims)
are still read, and ``to_dict`` writes version 2. Unknown keys are refused (a typo must not pass silently);
every message names the file and the field, e.g. ``bank.json: steps[2].caption: must be one line`` or
``bank.json: steps[0].claims[1].metric: unknown metric 'ndgc' of the 'retrieval' view (metrics: ...)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.claims import Claim, ClaimError, parse_claims

FORMAT = "lm-workbench-preset/2"  # what this version writes
FORMAT_1 = "lm-workbench-preset/1"  # still read: no claims
READ_FORMATS = (FORMAT_1, FORMAT)
STEP_INPUTS = ("text", "pair", "corpus")
MAX_CAPTION = 200
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_TOP_KEYS = {"format", "name", "title", "description", "model", "steps"}
_STEP_KEYS_1 = {"view", "caption", "inputs", "settings", "model"}
_STEP_KEYS = _STEP_KEYS_1 | {"claims"}
_CORPUS_KEYS = {"lines", "labels", "label_name", "source"}


class PresetError(WorkbenchError):
    """A preset file that does not follow the schema (the message names the file and the field)."""


@dataclass(frozen=True)
class PresetStep:
    view: str
    caption: str
    inputs: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    model: str | tuple[str, ...] | None = None  # None: the preset's model; a tuple: candidates in order
    claims: tuple[Claim, ...] = ()  # what the caption says the view shows, checkable (``presets verify``)


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    model: str | tuple[str, ...]  # a tuple: candidates, the first one present on this machine is used
    steps: tuple[PresetStep, ...]
    source: str = ""  # the file it came from (for messages and "file:" paths)

    def to_dict(self) -> dict[str, Any]:
        """The preset as its JSON object again (what ``parse_preset`` reads)."""
        steps = []
        for s in self.steps:
            step: dict[str, Any] = {"view": s.view, "caption": s.caption}
            if s.inputs:
                step["inputs"] = s.inputs
            if s.settings:
                step["settings"] = s.settings
            if s.model is not None:
                step["model"] = _model_json(s.model)
            if s.claims:
                step["claims"] = [c.to_dict() for c in s.claims]
            steps.append(step)
        return {"format": FORMAT, "name": self.name, "title": self.title, "description": self.description,
                "model": _model_json(self.model), "steps": steps}


def _model_json(model: str | tuple[str, ...]) -> str | list[str]:
    return model if isinstance(model, str) else list(model)


def _fail(source: str, where: str, message: str) -> PresetError:
    return PresetError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _text(data: dict, key: str, source: str, where: str, *, required: bool = True, one_line: bool = False) -> str:
    path = f"{where}.{key}" if where else key
    if key not in data:
        if required:
            raise _fail(source, path, "is missing")
        return ""
    value = data[key]
    if not isinstance(value, str) or (required and not value.strip()):
        raise _fail(source, path, "must be a non-empty string" if required else "must be a string")
    if one_line and ("\n" in value or len(value) > MAX_CAPTION):
        raise _fail(source, path, f"must be one line of at most {MAX_CAPTION} characters")
    return value


def _model(data: dict, source: str, where: str) -> str | tuple[str, ...]:
    """A model spec, or a non-empty list of candidate specs (kept as a tuple)."""
    value = data.get("model")
    if isinstance(value, list):
        path = f"{where}.model" if where else "model"
        if not value or not all(isinstance(v, str) and v.strip() for v in value):
            raise _fail(source, path, "must be a model spec or a non-empty list of model specs")
        return tuple(value)
    return _text(data, "model", source, where)


def _unknown(data: dict, allowed: set[str], source: str, where: str) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise _fail(source, where or "preset", f"unknown key(s) {', '.join(extra)} (allowed: "
                    f"{', '.join(sorted(allowed))})")


def _corpus(value: Any, source: str, where: str) -> Any:
    if value == "demo":
        return value
    if not isinstance(value, dict):
        raise _fail(source, where, 'must be "demo" or an object with "lines" (and optional "labels")')
    _unknown(value, _CORPUS_KEYS, source, where)
    lines = value.get("lines")
    if not isinstance(lines, list) or not lines or not all(isinstance(x, str) and x.strip() for x in lines):
        raise _fail(source, f"{where}.lines", "must be a non-empty list of non-empty strings")
    labels = value.get("labels")
    if labels is not None:
        if not isinstance(labels, list) or len(labels) != len(lines) or \
                not all(x is None or isinstance(x, str) for x in labels):
            raise _fail(source, f"{where}.labels", f"must be a list of {len(lines)} strings (one per line) or null")
    if "label_name" in value and not isinstance(value["label_name"], str):
        raise _fail(source, f"{where}.label_name", "must be a string")
    return value


def _step(data: Any, index: int, source: str, keys: set[str]) -> PresetStep:
    where = f"steps[{index}]"
    if not isinstance(data, dict):
        raise _fail(source, where, "must be an object")
    if "claims" in data and "claims" not in keys:
        raise _fail(source, where, f"claims need the format {FORMAT!r} (this file says {FORMAT_1!r})")
    _unknown(data, keys, source, where)
    view = _text(data, "view", source, where)
    caption = _text(data, "caption", source, where, one_line=True)
    inputs = data.get("inputs", {})
    if not isinstance(inputs, dict):
        raise _fail(source, f"{where}.inputs", "must be an object")
    bad = sorted(set(inputs) - set(STEP_INPUTS))
    if bad:
        raise _fail(source, f"{where}.inputs", f"unknown input(s) {', '.join(bad)} (known: {', '.join(STEP_INPUTS)})")
    for key in ("text", "pair"):
        if key in inputs and not isinstance(inputs[key], str):
            raise _fail(source, f"{where}.inputs.{key}", "must be a string")
    if "corpus" in inputs:
        _corpus(inputs["corpus"], source, f"{where}.inputs.corpus")
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise _fail(source, f"{where}.settings", "must be an object")
    if view == "runs":
        _study_settings(settings, source, f"{where}.settings")
    if view == "features" and "sae" in settings:
        _sae_setting(settings["sae"], source, f"{where}.settings.sae")
    model = _model(data, source, where) if "model" in data else None
    return PresetStep(view=view, caption=caption, inputs=dict(inputs), settings=dict(settings), model=model)


def _sae_setting(value: Any, source: str, where: str) -> None:
    """A Features step's ``sae``: a folder, or a training recipe with ``sae train``'s keys and a corpus
    (``lm_workbench.sae.preset_sae``); an unknown key is refused here, naming the step, not when the step plays."""
    from lm_workbench.sae.preset_sae import check_recipe

    problem = check_recipe(value)
    if problem:
        raise _fail(source, where, problem.removeprefix("sae: "))


def _study_settings(settings: dict, source: str, where: str) -> None:
    """A Runs step's ``study`` (a built-in study's name, or a study file: ``file:``/``preset-data:`` or a path
    ending ``.json``) and ``scale`` (``tiny`` or ``lecture``): an unknown study is refused naming the step."""
    from lm_workbench.studies.file import builtin_names
    from lm_workbench.studies.names import SCALES

    if "scale" in settings and "study" not in settings:
        raise _fail(source, f"{where}.scale", "needs a study")
    if "study" not in settings:
        return
    study = settings["study"]
    if not isinstance(study, str) or not study.strip():
        raise _fail(source, f"{where}.study", "must be a study's name or file")
    is_file = study.startswith(("file:", "preset-data:")) or study.endswith(".json")
    if not is_file and study not in builtin_names():
        raise _fail(source, f"{where}.study", f"unknown study {study!r} (built-in: {', '.join(builtin_names())})")
    if settings.get("scale", "lecture") not in SCALES:
        raise _fail(source, f"{where}.scale", f"must be one of {', '.join(SCALES)}, not {settings['scale']!r}")


def parse_preset(data: Any, source: str = "preset") -> Preset:
    """Check ``data`` (a parsed JSON value) against the schema; a ``PresetError`` names what is wrong."""
    if not isinstance(data, dict):
        raise _fail(source, "", "a preset must be a JSON object")
    fmt = data.get("format")
    if fmt not in READ_FORMATS:
        if isinstance(fmt, str) and fmt.startswith("lm-workbench-preset/"):
            raise _fail(source, "format", f"{fmt!r} is a newer preset format than this version reads ({FORMAT})")
        raise _fail(source, "format", f"must be {FORMAT!r} (or the older {FORMAT_1!r})")
    _unknown(data, _TOP_KEYS, source, "")
    name = _text(data, "name", source, "")
    if not NAME_PATTERN.match(name):
        raise _fail(source, "name", "must be lower-case letters, digits and dashes (at most 64)")
    title = _text(data, "title", source, "", one_line=True)
    description = _text(data, "description", source, "", required=False)
    model = _model(data, source, "")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise _fail(source, "steps", "must be a non-empty list")
    keys = _STEP_KEYS if fmt == FORMAT else _STEP_KEYS_1
    parsed = [_step(s, i, source, keys) for i, s in enumerate(steps)]
    parsed = [replace(step, claims=_claims(raw, i, parsed, source)) if isinstance(raw, dict) and "claims" in raw
              else step for i, (step, raw) in enumerate(zip(parsed, steps))]
    return Preset(name=name, title=title, description=description, model=model, steps=tuple(parsed), source=source)


def _claims(raw: dict, index: int, steps: list[PresetStep], source: str) -> tuple[Claim, ...]:
    """Step ``index``'s claims, checked against its view's metrics (and, for a claim that compares with another
    step, that step's view's)."""
    from lm_workbench.lectures.metrics import check_metric

    def view_of(step: int | None) -> str | None:
        if step is None:
            return steps[index].view
        return steps[step - 1].view if 1 <= step <= len(steps) else None

    try:
        return parse_claims(raw["claims"], f"steps[{index}].claims", view_of, check_metric)
    except ClaimError as exc:
        raise PresetError(f"{source}: {exc}") from None

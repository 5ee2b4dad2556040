"""A lecture being recorded or edited (no Qt): ``LectureDraft`` and what makes a step of a view's state.

The window's recorder (``lm_workbench.ui.lectures.recorder``) asks the current view for what a workspace keeps of it
(``preset_state``: settings and a corpus) and the text box for its text and pair; ``make_step`` turns that
into a step, with course-model folders and the built-in data files written as ``course:<family>`` and
``preset-data:<file>`` so the preset works on another machine. The draft keeps the steps in order (add,
re-take, re-caption, move, delete) and writes them as a preset in the existing schema
(``lm_workbench.lectures.schema``, checked by its own ``parse_preset`` before anything is written);
``LectureDraft.from_preset`` opens an existing preset for editing.

Events: ``changed`` [] after every edit.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from lm_workbench.lectures.availability import COURSE, DATA, DEFAULT
from lm_workbench.lectures.library import data_path, user_presets_folder
from lm_workbench.lectures.schema import FORMAT, MAX_CAPTION, Preset, PresetError, parse_preset
from lm_workbench.observable import EventGroup

SUFFIX = ".json"
FALLBACK_NAME = "my-lecture"
FALLBACK_TITLE = "My lecture"


@dataclass
class DraftStep:
    view: str
    caption: str
    inputs: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    model: str | tuple[str, ...] | None = None  # the model it was recorded on (None: the preset's)
    # the claims of a preset opened for editing, as JSON objects; a claim that compares with another step holds
    # that ``DraftStep`` itself as its ``value["step"]``, so moving steps keeps it pointing at the same step
    claims: list[dict[str, Any]] = field(default_factory=list, compare=False)


def slug(title: str) -> str:
    """A preset name from a title: lower-case letters, digits and dashes, at most 64."""
    name = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:64].strip("-")
    return name or FALLBACK_NAME


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:MAX_CAPTION]


def portable(value: Any, course_models: Mapping[str, str]) -> Any:
    """``value`` with a course model's folder written ``course:<family>`` and a built-in data file
    ``preset-data:<file>`` (what ``availability.resolve_settings`` turns back into paths)."""
    if isinstance(value, dict):
        return {k: portable(v, course_models) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(v, course_models) for v in value]
    if isinstance(value, str) and value:
        for family, folder in course_models.items():
            if value == str(folder):
                return f"{COURSE}{family}"
        name = Path(value).name
        try:
            if Path(value).is_absolute() and Path(value) == data_path(name):
                return f"{DATA}{name}"
        except (PresetError, OSError, ValueError):
            pass
    return value


def _clean_corpus(corpus: Any) -> Any:
    if isinstance(corpus, dict):
        return {k: v for k, v in corpus.items() if v is not None}
    return corpus


def make_step(view: str, caption: str, state: tuple[dict[str, Any], dict[str, Any]] | None, *,
              text: str | None = None, pair: str | None = None, model: str | None = None,
              course_models: Mapping[str, str] | None = None) -> DraftStep:
    """A step showing ``view`` as it is now: its ``preset_state`` (settings, inputs), the text box's ``text``
    and ``pair`` (None: the view does not read them), recorded on ``model`` (a portable spec)."""
    course = course_models or {}
    settings, inputs = state if state is not None else ({}, {})
    step_inputs: dict[str, Any] = {}
    if text is not None:
        step_inputs["text"] = text
        if pair is not None:
            step_inputs["pair"] = pair
    if isinstance(inputs, dict) and inputs.get("corpus") is not None:
        step_inputs["corpus"] = _clean_corpus(portable(inputs["corpus"], course))
    return DraftStep(view=view, caption=one_line(caption) or view, inputs=json_copy(step_inputs),
                     settings=json_copy(portable(dict(settings or {}), course)), model=model)


def json_copy(value: Any) -> Any:
    """A deep copy through JSON: what the file will hold (tuples become lists; refuses what JSON cannot)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise PresetError(f"a step's state cannot be written as JSON ({exc})") from None


class LectureDraft:
    def __init__(self, title: str = "", description: str = "", model: str | tuple[str, ...] | None = None,
                 name: str = "") -> None:
        self.events = EventGroup("changed")
        self.title = title
        self.description = description
        self.model = model  # None: the first step's model
        self.name = name  # "" : made from the title
        self.steps: list[DraftStep] = []
        self.path: Path | None = None  # the file it was opened from or last saved to
        self.modified = False  # changed since it was made, opened or last saved (the title's "*")

    # ------------------------------------------------------------- editing
    def _changed(self) -> None:
        self.modified = True
        self.events.changed.emit()

    def _check(self, index: int) -> int:
        if not 0 <= index < len(self.steps):
            raise IndexError(f"there is no step {index + 1} (the lecture has {len(self.steps)})")
        return index

    def set_title(self, title: str) -> None:
        self.title = one_line(title)
        self._changed()

    def add(self, step: DraftStep, index: int | None = None) -> int:
        """Add ``step`` at the end (or before ``index``); its index."""
        index = len(self.steps) if index is None else max(0, min(index, len(self.steps)))
        self.steps.insert(index, step)
        self._changed()
        return index

    def retake(self, index: int, step: DraftStep) -> None:
        """Step ``index`` shows what ``step`` shows (a view's state taken again); its caption stays."""
        old = self.steps[self._check(index)]  # changed in place: other steps' claims may point at it
        old.view, old.inputs, old.settings, old.model = step.view, step.inputs, step.settings, step.model
        self._changed()

    def recaption(self, index: int, caption: str) -> None:
        self.steps[self._check(index)].caption = one_line(caption)
        self._changed()

    def move(self, index: int, to: int) -> int:
        """Move step ``index`` to position ``to`` (clamped); where it went."""
        step = self.steps.pop(self._check(index))
        to = max(0, min(to, len(self.steps)))
        self.steps.insert(to, step)
        self._changed()
        return to

    def reorder(self, order: list[int]) -> None:
        """The steps in ``order`` (a permutation of their indexes), e.g. after a drag in the list."""
        if sorted(order) != list(range(len(self.steps))):
            raise ValueError(f"{order} is not an order of the {len(self.steps)} steps")
        self.steps = [self.steps[i] for i in order]
        self._changed()

    def delete(self, index: int) -> DraftStep:
        """Remove step ``index``; a claim of another step that compares with it goes too (it has nothing left to
        compare with)."""
        step = self.steps.pop(self._check(index))
        for other in self.steps:
            other.claims = [c for c in other.claims if not _compares_with(c, step)]
        self._changed()
        return step

    # -------------------------------------------------------------- output
    def preset_model(self) -> str | tuple[str, ...]:
        if self.model is not None:
            return self.model
        return next((s.model for s in self.steps if s.model is not None), DEFAULT)

    def to_dict(self) -> dict[str, Any]:
        """The preset as JSON in ``lm-workbench-preset/2``, checked by the schema's own validator (a
        ``PresetError`` names what is wrong: no steps, an empty caption)."""
        model = self.preset_model()
        steps = []
        for s in self.steps:
            step: dict[str, Any] = {"view": s.view, "caption": s.caption or s.view}
            if s.inputs:
                step["inputs"] = json_copy(s.inputs)
            if s.settings:
                step["settings"] = json_copy(s.settings)
            if s.model is not None and s.model != model:
                step["model"] = s.model if isinstance(s.model, str) else list(s.model)
            if s.claims:
                step["claims"] = [self._claim_json(c) for c in s.claims]
            steps.append(step)
        title = self.title.strip() or FALLBACK_TITLE
        data: dict[str, Any] = {"format": FORMAT, "name": self.name or slug(title), "title": title,
                                "description": self.description,
                                "model": model if isinstance(model, str) else list(model), "steps": steps}
        if not data["description"]:
            del data["description"]
        parse_preset(data, f"the lecture {title!r}")
        return data

    def _claim_json(self, claim: dict[str, Any]) -> dict[str, Any]:
        """A claim as the file writes it: a step it compares with by its number now."""
        value = claim.get("value")
        if isinstance(value, dict) and isinstance(value.get("step"), DraftStep):
            index = next(i for i, s in enumerate(self.steps) if s is value["step"])
            claim = {**claim, "value": {**value, "step": index + 1}}
        return json_copy(claim)

    def to_preset(self, source: str = "") -> Preset:
        """The draft as a ``Preset`` the lecture controller can run (``source``: the file, for ``file:``)."""
        preset = parse_preset(self.to_dict(), source or "the recorded lecture")
        return preset if source else Preset(preset.name, preset.title, preset.description, preset.model,
                                            preset.steps)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the preset file (``None``: ``<name>.json`` in the user's presets folder, or where it was opened
        from); the path written."""
        data = self.to_dict()
        if path is None:
            path = self.path or user_presets_folder() / f"{data['name']}{SUFFIX}"
        path = Path(path)
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        tmp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            raise PresetError(f"{path}: cannot write it ({exc.strerror})") from None
        self.path = path
        self.modified = False
        self.events.changed.emit()  # saved: no longer modified
        return path

    # --------------------------------------------------------------- input
    @classmethod
    def from_preset(cls, preset: Preset | Mapping[str, Any], path: str | Path | None = None) -> LectureDraft:
        """A draft of an existing preset (a ``Preset`` or its JSON object), to edit and save again."""
        if not isinstance(preset, Preset):
            preset = parse_preset(copy.deepcopy(dict(preset)), str(path or "preset"))
        draft = cls(preset.title, preset.description, preset.model, preset.name)
        draft.steps = [DraftStep(s.view, s.caption, json_copy(s.inputs), json_copy(s.settings), s.model)
                       for s in preset.steps]
        for step, source in zip(draft.steps, preset.steps):
            step.claims = [_claim_draft(c.to_dict(), draft.steps) for c in source.claims]
        if path is not None:
            draft.path = Path(path)
        elif preset.source and Path(preset.source).is_file():
            draft.path = Path(preset.source)
        return draft


def _claim_draft(claim: dict[str, Any], steps: list[DraftStep]) -> dict[str, Any]:
    """A claim's JSON with the step it compares with (a number in the file) as that ``DraftStep``."""
    value = claim.get("value")
    if isinstance(value, dict) and isinstance(value.get("step"), int):
        return {**claim, "value": {**value, "step": steps[value["step"] - 1]}}
    return claim


def _compares_with(claim: dict[str, Any], step: DraftStep) -> bool:
    value = claim.get("value")
    return isinstance(value, dict) and value.get("step") is step

"""User settings: a ``Settings`` dataclass kept as JSON in ``config_dir()/settings.json``.

Each field carries ``metadata={"help": ...}`` (and ``"choices"`` where the
value is one of a few strings) so a settings form can be generated from the
dataclass. Loading never fails: a missing file gives the defaults, a file that
is not valid JSON is renamed to ``settings.json.corrupt-<timestamp>`` (never
silently lost) and the defaults are used, and a single bad value falls back to
that field's default. Saving is atomic (temporary file + ``os.replace``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.files import move_aside
from lm_workbench.paths import config_dir

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
MAX_RECENT = 10
DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = ("auto", "float32", "bfloat16", "float16")
COURSE_OFFER_ANSWERS = ("", "build", "declined")  # the first launch's offer to build the course models
WORDS_MODES = ("as-given", "split")  # an ELMo's words mode (lm_workbench.engine.elmo.words.WORDS_MODES)


@dataclass
class Settings:
    """The user's preferences, shared by the window and the command line."""

    device: str = field(
        default="auto",
        metadata={"help": "Where models run: auto (CUDA when present), cpu or cuda.",
                  "choices": DEVICES},
    )
    precision: str = field(
        default="auto",
        metadata={"help": "Number format of the weights: auto (float32 on CPU, bf16/fp16 "
                          "on CUDA), float32, bfloat16 or float16.",
                  "choices": PRECISIONS},
    )
    cpu_threads: int = field(
        default=0,
        metadata={"help": "Threads torch may use on the CPU; 0 means all cores."},
    )
    offline: bool | None = field(
        default=None,
        metadata={"help": "Never contact the Hugging Face Hub. Unset: follow the "
                          "HF_HUB_OFFLINE environment variable."},
    )
    trust_remote_code: bool = field(
        default=False,
        metadata={"help": "Allow a model folder to run its own Python code. Only for "
                          "models you trust."},
    )
    allow_pickle_weights: bool = field(
        default=False,
        metadata={"help": "Allow loading .bin/.pt weights (pickle can run code). "
                          "Safetensors files are always allowed."},
    )
    recent_models: list[str] = field(
        default_factory=list,
        metadata={"help": f"Models opened lately, most recent first (at most {MAX_RECENT})."},
    )
    default_model: str = field(
        default="minilm",
        metadata={"help": "The model opened at start: a folder, a hub id or a built-in name."},
    )
    memory_headroom: float = field(
        default=0.9,
        metadata={"help": "Fraction of free memory a model may take before loading is "
                          "refused (0-1)."},
    )
    model_words: dict[str, str] = field(
        default_factory=dict,
        metadata={"help": "How each ELMo reads words, by model (folder or hub id): \"as-given\" takes the "
                          "whitespace-separated words as typed, \"split\" splits off punctuation. A model not "
                          "named here: as-given for a published AllenNLP ELMo, split for one the workbench trained."},
    )
    enabled_plugins: list[str] = field(
        default_factory=list,
        metadata={"help": "Plugins from the user's plugins folder that may be loaded, by name. "
                          "A folder plugin runs code, so it stays off until named here."},
    )

    window_geometry: str = field(
        default="",
        metadata={"help": "Where the window was and how large: \"x,y,width,height\" (\",max\" when "
                          "maximised). Empty: most of the screen the window opens on."},
    )
    about_expanded: bool = field(
        default=True,
        metadata={"help": "Show the explanation of the current view (the About panel) below it."},
    )

    about_height: int = field(
        default=0,
        metadata={"help": "Height of the About panel in pixels, as last dragged; 0: the default."},
    )
    recent_workspaces: list[str] = field(
        default_factory=list,
        metadata={"help": "Workspace files opened or saved recently, newest first (at most 10)."},
    )

    course_models_offer: str = field(
        default="",
        metadata={"help": "The answer to the first launch's offer to build the course models in the background: "
                          "\"build\" or \"declined\"; empty: not asked yet (the window asks once).",
                  "choices": COURSE_OFFER_ANSWERS},
    )

    presentation_mode: bool = field(
        default=False,
        metadata={"help": "Open in presentation mode (F5): large fonts, high contrast, thick lines, "
                          "colour-blind-safe colours, for a projector."},
    )

    def add_recent(self, spec: str) -> None:
        """Put ``spec`` first in ``recent_models``, removing an older copy; keep 10. A run's (or a course
        model's) folder opens as the model in its ``model/``: the two are one entry, listed as that model folder."""
        spec = _model_folder_of(str(spec))
        self.recent_models = [spec] + [m for m in self.recent_models if _model_folder_of(m) != spec]
        del self.recent_models[MAX_RECENT:]

    def offer_recent(self, spec: str) -> bool:
        """Append ``spec`` to ``recent_models`` (last: the user's own come first) unless it is there already, as
        itself or as the same model folder, or the list is full; whether it was added."""
        spec = _model_folder_of(str(spec))
        if len(self.recent_models) >= MAX_RECENT or spec in {_model_folder_of(m) for m in self.recent_models}:
            return False
        self.recent_models.append(spec)
        return True

    def add_recent_workspace(self, path: str) -> None:
        """Put ``path`` first in ``recent_workspaces``, removing an older copy; keep 10."""
        path = str(path)
        self.recent_workspaces = [path] + [p for p in self.recent_workspaces if p != path]
        del self.recent_workspaces[MAX_RECENT:]

    def words_for(self, spec: str) -> str | None:
        """The words mode chosen for the model ``spec`` names, or None (the model's default)."""
        return self.model_words.get(model_key(spec))

    def set_words(self, spec: str, mode: str | None) -> None:
        """Remember ``mode`` (``WORDS_MODES``) for the model ``spec`` names; None forgets the choice."""
        key = model_key(spec)
        if mode is None:
            self.model_words.pop(key, None)
        elif mode in WORDS_MODES:
            self.model_words[key] = mode
        else:
            raise ValueError(f"words mode must be one of {', '.join(WORDS_MODES)}, not {mode!r}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Settings":
        """Build settings from a dict; unknown keys are ignored, bad values defaulted."""
        defaults = cls()
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value = _coerce(f, data[f.name])
            if value is _INVALID:
                log.warning("settings: ignoring invalid %s=%r", f.name, data[f.name])
                continue
            values[f.name] = value
        return dataclasses.replace(defaults, **values)


_INVALID = object()


def model_key(spec: str) -> str:
    """The name a model's own settings are kept under: an existing folder's absolute path (however it was
    typed), else the spec itself (a hub id, a built-in name)."""
    spec = str(spec).strip()
    path = Path(spec).expanduser()
    if spec and path.exists():
        return str(path.resolve())
    return spec


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    """The value checked against the field's type, or ``_INVALID``."""
    name = f.name
    choices = f.metadata.get("choices")
    if choices is not None:
        return value if value in choices else _INVALID
    if name in ("cpu_threads", "about_height"):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        return value if ok else _INVALID
    if name == "offline":
        return value if value is None or isinstance(value, bool) else _INVALID
    if name in ("trust_remote_code", "allow_pickle_weights", "about_expanded", "presentation_mode"):
        return value if isinstance(value, bool) else _INVALID
    if name in ("recent_models", "recent_workspaces"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return _INVALID
        if name == "recent_models":  # a course model's folder and its model/ are one entry (issue 48)
            value = [_model_folder_of(v) for v in value]
        deduped = list(dict.fromkeys(value))
        return deduped[:MAX_RECENT]
    if name == "model_words":
        if not isinstance(value, dict):
            return _INVALID
        return {str(k): v for k, v in value.items() if isinstance(k, str) and k and v in WORDS_MODES}
    if name == "default_model":
        return value if isinstance(value, str) and value else _INVALID
    if name == "window_geometry":
        return value if isinstance(value, str) and len(value) < 80 else _INVALID
    if name == "memory_headroom":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1
        return float(value) if ok else _INVALID
    return value


def settings_path() -> Path:
    """Where the settings file lives: ``config_dir()/settings.json``."""
    return config_dir() / SETTINGS_FILE


def load_settings(path: str | Path | None = None) -> Settings:
    """Read the settings; defaults when the file is missing or corrupt.

    A corrupt file (not JSON, or not a JSON object) is renamed to
    ``<name>.corrupt-<timestamp>`` next to it so the user can recover it.
    """
    path = Path(path) if path is not None else settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("settings file is not a JSON object")
    except (ValueError, UnicodeDecodeError) as exc:
        aside = move_aside(path)
        log.warning("settings: %s is corrupt (%s); moved to %s, using defaults", path, exc, aside)
        return Settings()
    return Settings.from_dict(data)


def save_settings(settings: Settings, path: str | Path | None = None) -> Path:
    """Write the settings atomically (temporary file, fsync, ``os.replace``)."""
    path = Path(path) if path is not None else settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_dict(), indent=2, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def _model_folder_of(spec: str) -> str:
    """``<folder>/model`` for a ``<folder>`` that opens as that model (a run's or a course model's folder holds its
    model in ``model/``); a folder as ``model_key`` names it (its real absolute path: a link, a relative path, a
    trailing slash are one folder, one entry); any other spec (a hub id, ``minilm``, ``course:bert``) as given."""
    path = Path(model_key(spec))
    if not path.is_dir():
        return spec
    inner = path / "model"
    return str(inner) if (inner / "config.json").is_file() else str(path)
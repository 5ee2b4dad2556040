"""Where presets come from: the built-in ones (package data in ``data/``) and a teacher's own files."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_input import read_text_file
from lm_workbench.lectures.schema import Preset, PresetError, parse_preset

DATA_PACKAGE = "lm_workbench.lectures"
DATA_FOLDER = "data"
MAX_PRESET_BYTES = 5_000_000
USER_FOLDER = "presets"  # in the data folder: the teacher's own presets (Lectures > Record lecture saves there)


def parse_preset_text(text: str, source: str) -> Preset:
    """A preset from JSON text; a ``PresetError`` naming ``source`` when it is not JSON or not a preset."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PresetError(f"{source}: not valid JSON ({exc})") from None
    return parse_preset(data, source)


def load_preset_file(path: str | Path) -> Preset:
    """Read and check a preset file."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_PRESET_BYTES:
            raise PresetError(f"{p}: {p.stat().st_size / 1e6:.1f} MB is too large for a preset "
                              f"(at most {MAX_PRESET_BYTES // 1_000_000} MB)")
        text = read_text_file(p)
    except OSError as exc:
        raise PresetError(f"{p}: cannot read it ({exc.strerror})") from None
    except PresetError:
        raise
    except WorkbenchError as exc:  # the checked reader's: not text, or unreadable
        raise PresetError(str(exc)) from None
    return parse_preset_text(text, str(p))


def data_path(name: str) -> Path:
    """A file shipped with the built-in presets (``preset-data:<name>`` in a preset)."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise PresetError(f"preset-data:{name}: a built-in data file is named without folders")
    path = Path(str(resources.files(DATA_PACKAGE).joinpath(DATA_FOLDER, name)))
    if not path.is_file():
        raise PresetError(f"preset-data:{name}: no such built-in data file")
    return path


def builtin_presets() -> list[Preset]:
    """The presets shipped with the workbench, in lecture order (their files are named ``NN-name.json``)."""
    folder = resources.files(DATA_PACKAGE).joinpath(DATA_FOLDER)
    files = sorted(f for f in folder.iterdir() if f.name.endswith(".json"))
    return [parse_preset_text(f.read_text(encoding="utf-8"), f"built-in {f.name}") for f in files]


def find_builtin(name: str) -> Preset:
    for preset in builtin_presets():
        if preset.name == name:
            return preset
    raise PresetError(f"no built-in preset called {name!r}")


def user_presets_folder() -> Path:
    """Where a teacher's own presets are saved by the recorder (and listed in the Lectures menu from)."""
    from lm_workbench.paths import data_dir

    folder = data_dir() / USER_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def user_presets() -> tuple[list[Preset], list[str]]:
    """The presets in the user's presets folder (by file name) and, for a file that is not one, its message."""
    presets, problems = [], []
    for path in sorted(user_presets_folder().glob("*.json")):
        try:
            presets.append(load_preset_file(path))
        except PresetError as exc:
            problems.append(str(exc))
    return presets, problems

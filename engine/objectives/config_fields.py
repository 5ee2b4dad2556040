"""An objective's settings: a dataclass a form can be generated from, checked before use.

Each field of an objective's ``Config`` dataclass carries
``metadata={"help": ..., "min": ..., "max": ..., "choices": ...}``.
``config_fields`` describes the fields for a settings form, ``validate_config``
checks a config against its bounds (a ``WorkbenchError`` naming the field),
and ``config_from_strings`` applies ``key=value`` overrides such as the CLI's
``--set mask_rate=0.2``. Supported field types: bool, int, float, str.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import Any, Iterable

from lm_workbench.engine.errors import WorkbenchError

KINDS = {bool: "bool", int: "int", float: "float", str: "str"}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class ConfigField:
    """One setting as a form shows it."""

    name: str
    kind: str  # "bool", "int", "float" or "str"
    default: Any
    help: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["choices"] = list(self.choices) if self.choices is not None else None
        return data


def _field_types(config_cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(config_cls)
    except Exception as exc:  # a plugin's annotations that do not resolve
        raise TypeError(f"cannot read the field types of {config_cls.__name__}: {exc}") from None


def config_fields(config_cls: type) -> list[ConfigField]:
    """The fields of a config dataclass; TypeError for a type a form cannot show."""
    if not dataclasses.is_dataclass(config_cls):
        raise TypeError(f"{getattr(config_cls, '__name__', config_cls)!r} is not a dataclass")
    types = _field_types(config_cls)
    out: list[ConfigField] = []
    for f in dataclasses.fields(config_cls):
        kind = KINDS.get(types.get(f.name))
        if kind is None:
            raise TypeError(f"config field {f.name!r} has type {types.get(f.name)!r}; use bool, int, float or str")
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:
            raise TypeError(f"config field {f.name!r} has no default")
        meta = f.metadata
        choices = meta.get("choices")
        out.append(ConfigField(
            name=f.name, kind=kind, default=default, help=str(meta.get("help", "")),
            min=meta.get("min"), max=meta.get("max"), choices=tuple(choices) if choices is not None else None,
        ))
    return out


def _prefix(owner: str) -> str:
    return f"{owner}: " if owner else ""


def check_field_value(spec: ConfigField, value: Any, owner: str) -> None:
    """Raise ``WorkbenchError`` when ``value`` does not fit ``spec`` (kind, choices, range).

    None passes for a field whose default is None ("auto": the training config's threads).
    """
    if value is None and spec.default is None:
        return
    where = f"{_prefix(owner)}{spec.name}"
    if spec.kind == "bool":
        ok = isinstance(value, bool)
    elif spec.kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif spec.kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    else:
        ok = isinstance(value, str)
    if not ok:
        raise WorkbenchError(f"{where} must be {'a finite ' if spec.kind == 'float' else 'a '}{spec.kind}, not {value!r}")
    if spec.choices is not None and value not in spec.choices:
        raise WorkbenchError(f"{where} must be one of {', '.join(map(str, spec.choices))}, not {value!r}")
    if spec.min is not None and value < spec.min:
        raise WorkbenchError(f"{where} must be at least {spec.min}, not {value!r}")
    if spec.max is not None and value > spec.max:
        raise WorkbenchError(f"{where} must be at most {spec.max}, not {value!r}")


def validate_config(config: Any, owner: str = "") -> None:
    """Raise ``WorkbenchError`` naming the first field whose value is out of bounds or of a wrong type."""
    for spec in config_fields(type(config)):
        check_field_value(spec, getattr(config, spec.name), owner)


def _parse(spec: ConfigField, text: str, owner: str) -> Any:
    where = f"{_prefix(owner)}{spec.name}"
    raw = text.strip()
    if spec.kind == "bool":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise WorkbenchError(f"{where} must be true or false, not {text!r}")
    if spec.kind in ("int", "float"):
        try:
            return int(raw) if spec.kind == "int" else float(raw)
        except ValueError:
            raise WorkbenchError(f"{where} must be a number ({spec.kind}), not {text!r}") from None
    return text


def config_from_strings(config: Any, assignments: Iterable[str], owner: str = "") -> Any:
    """A copy of ``config`` with ``key=value`` assignments applied, then validated."""
    specs = {spec.name: spec for spec in config_fields(type(config))}
    changes: dict[str, Any] = {}
    for item in assignments:
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise WorkbenchError(f"{_prefix(owner)}a setting must look like key=value, not {item!r}")
        if key not in specs:
            known = ", ".join(specs) or "none"
            raise WorkbenchError(f"{_prefix(owner)}unknown setting {key!r} (settings: {known})")
        changes[key] = _parse(specs[key], value, owner)
    result = dataclasses.replace(config, **changes)
    validate_config(result, owner)
    return result

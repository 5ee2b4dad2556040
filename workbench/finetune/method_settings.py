"""A fine-tuning method's own settings (the fields of its ``Config``), one path from the CLI and the Python API.

The CLI's ``finetune`` has one option per setting, ``--<method>-<setting>`` (``--lora-rank 8``), added when the
command is parsed (``add_method_options``; the option's dest is ``method_option__<method>__<setting>``). The
API's ``method_settings={"rank": 8}`` (``FinetuneRequest.method_settings``: setting name -> value) becomes those
same options (``setting_words``) and goes through the same parser. So both are checked by the same functions and
refused with the same line:

- an option that names no setting of its method (``--lora-rnk``, or ``method_settings={"rnk": 4}``):
  ``unknown_option_line``, run by the parser on the words before argparse sees them (so no abbreviation of a
  setting is taken either: ``{"r": 4}`` is not the rank);
- a setting of another method than ``--method`` (``--method houlsby --lora-rank 4``): ``settings_of``;
- a value of the wrong type or out of its range: ``method_config_of``, the method's own ``config_from_strings``
  check, before any file is read.

Then ``method_config_of`` gives the run its ``FineTuneSpec.method_config`` (setting -> the value as a string,
applied to the method's ``Config`` when the run starts). Light: the method plugins are imported only when a
function needs them.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable, Mapping

from lm_workbench.engine.errors import WorkbenchError

OPTION_PREFIX = "method_option__"  # the dest of --<method>-<setting>: method_option__<method>__<setting>


def option_of(method: str, setting: str) -> str:
    """The CLI option of ``method``'s ``setting``: ``--lora-rank``, ``--houlsby-reduction-factor``."""
    return f"--{method}-{setting.replace('_', '-')}"


def method_fields(methods: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
    """Each working method's settings (``ConfigField`` list, in its ``Config``'s order), by method name; the
    built-ins and enabled folder plugins unless ``methods`` (name -> method) is given."""
    from lm_workbench.engine.objectives.config_fields import config_fields

    if methods is None:
        from lm_workbench.finetune.methods import finetune_methods

        methods = finetune_methods()
    return {name: config_fields(method.Config) for name, method in methods.items()}


def builtin_method_fields() -> dict[str, list[Any]]:
    """The settings of the methods this package ships (its own ``lm_workbench.finetune_methods`` entry points),
    by name, sorted: what the API's docstring lists, the same on every machine (no folder plugins)."""
    from importlib.metadata import entry_points

    from lm_workbench.extensions.finetune_method_kind import FINETUNE_METHODS

    found = sorted((ep for ep in entry_points(group=FINETUNE_METHODS.group)
                    if ep.value.startswith("lm_workbench.plugins.")), key=lambda ep: ep.name)
    return method_fields({ep.name: ep.load() for ep in found})


def add_method_options(parser: Any, fields: Mapping[str, list[Any]] | None = None) -> None:
    """One option per setting of each working method (``method_fields``), in an argument group of ``parser``."""
    fields = method_fields() if fields is None else fields
    group = parser.add_argument_group("method settings (each for its own --method)")
    for name, settings in fields.items():
        for f in settings:
            group.add_argument(option_of(name, f.name), dest=f"{OPTION_PREFIX}{name}__{f.name}",
                               metavar=f.kind.upper(), help=f"{f.help} (default {f.default})")


def _owners(setting: str, fields: Mapping[str, list[Any]]) -> list[str]:
    return [name for name, settings in fields.items() if any(f.name == setting for f in settings)]


def unknown_option_line(word: str, fields: Mapping[str, list[Any]]) -> str | None:
    """The one-line refusal of a command-line word ``--<method>-<x>[=value]`` whose ``x`` is no setting of
    ``method`` (None when the word names a setting, or names no method). Names the nearest setting of that
    method, or the methods ``x`` is a setting of."""
    option = word.partition("=")[0]
    named = [name for name in fields if option.startswith(f"--{name}-")]
    if not option.startswith("--") or not named:
        return None
    method = max(named, key=len)  # parallel-adapter before a method called parallel
    setting = option[len(method) + 3:].replace("-", "_")
    own = [f.name for f in fields[method]]
    if setting in own:
        return None
    owners = _owners(setting, fields)
    if owners:
        return f"{option}: {setting} is a setting of --method {', '.join(owners)}, not of {method}"
    if not own:
        return f"{option}: --method {method} has no settings"
    nearest = difflib.get_close_matches(setting, own, n=1, cutoff=0.6)
    if nearest:
        return (f"{option}: --method {method} has no setting {setting}; the nearest is {nearest[0]} "
                f"({option_of(method, nearest[0])})")
    return f"{option}: --method {method} has no setting {setting}; its settings: {', '.join(own)}"


def first_unknown_option(words: Iterable[str], known: Iterable[str],
                         fields: Mapping[str, list[Any]]) -> str | None:
    """``unknown_option_line`` of the first word that is not one of the parser's ``known`` option strings and
    names no setting of the method it starts with; None when there is none."""
    known = set(known)
    for word in words:
        if word == "--":
            break
        if isinstance(word, str) and word.startswith("--") and word.partition("=")[0] not in known:
            line = unknown_option_line(word, fields)
            if line is not None:
                return line
    return None


def settings_of(args: Any) -> tuple[tuple[str, Any], ...]:
    """The method settings a parsed ``finetune`` command line gives (``--<method>-<setting>`` options), as
    ``(setting, value)`` pairs sorted by setting. ``WorkbenchError`` for a setting of another method than
    ``args.method`` (the CLI's line: ``--lora-rank is a setting of --method lora, not of houlsby``)."""
    found: list[tuple[str, Any]] = []
    for dest, value in sorted(vars(args).items()):
        if not dest.startswith(OPTION_PREFIX) or value is None:
            continue
        method, _, setting = dest[len(OPTION_PREFIX):].partition("__")
        if method != getattr(args, "method", None):
            raise WorkbenchError(f"{option_of(method, setting)} is a setting of --method {method}, "
                                 f"not of {getattr(args, 'method', None)}")
        found.append((setting, value))
    return tuple(found)


def normalised(settings: Any) -> tuple[tuple[str, Any], ...]:
    """``settings`` (a mapping setting -> value, or ``(setting, value)`` pairs) as pairs sorted by setting, names
    with underscores (``reduction-factor`` -> ``reduction_factor``), None values left out (the method's default).
    ``WorkbenchError`` for anything else, or one setting given twice."""
    if settings is None:
        return ()
    try:
        pairs = list(settings.items()) if isinstance(settings, Mapping) else [(k, v) for k, v in settings]
    except (TypeError, ValueError):
        raise WorkbenchError(f"method_settings must map setting names to values ({{'rank': 8}}), "
                             f"not {settings!r}") from None
    out: dict[str, Any] = {}
    for key, value in pairs:
        if not isinstance(key, str) or not key.strip():
            raise WorkbenchError(f"method_settings: a setting name must be a string, not {key!r}")
        name = key.strip().replace("-", "_")
        if name in out:
            raise WorkbenchError(f"method_settings: {name} is given twice")
        if value is not None:
            out[name] = value
    return tuple(sorted(out.items()))


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def setting_words(method: str | None, settings: Iterable[tuple[str, Any]]) -> list[str]:
    """The command-line words that give ``method`` the ``settings`` (``[("rank", 4)]`` -> ``["--lora-rank=4"]``;
    bools as true/false). ``WorkbenchError`` for settings without a method, or a value that is not a bool, int,
    float or str (the command line has no other kind)."""
    settings = list(settings)
    if not settings:
        return []
    if not method:
        raise WorkbenchError("method_settings are a method's settings: name the method too (--method)")
    words = []
    for name, value in settings:
        if not isinstance(value, (bool, int, float, str)):
            raise WorkbenchError(f"{option_of(method, name)}: a setting is a bool, int, float or str, "
                                 f"not {type(value).__name__} ({value!r})")
        words.append(f"{option_of(method, name)}={_word(value)}")
    return words


def method_config_of(method: str, settings: Iterable[tuple[str, Any]]) -> dict[str, str]:
    """``FineTuneSpec.method_config`` of ``settings`` (``settings_of``'s pairs): setting -> value as a string,
    checked now as the run will apply them (the method's ``Config``, ``config_from_strings``), so a value of the
    wrong type or out of range is refused before any file is read, with the run's own line
    (``lora: rank must be a number (int), not 'x'``)."""
    config = {name: _word(value) if isinstance(value, bool) else str(value) for name, value in settings}
    if config:
        from lm_workbench.engine.objectives.config_fields import config_from_strings
        from lm_workbench.finetune.methods import finetune_method

        config_from_strings(finetune_method(method).default_config(), [f"{k}={v}" for k, v in config.items()],
                            method)
    return config


def settings_doc(fields: Mapping[str, list[Any]]) -> str:
    """The methods' settings as one paragraph: ``lora: rank (int, 8), alpha (float, 16.0), ...; houlsby: ...``."""
    parts = []
    for name, settings in fields.items():
        listed = ", ".join(f"{f.name} ({f.kind}, {f.default!r})" for f in settings) or "none"
        parts.append(f"{name}: {listed}")
    return "; ".join(parts)

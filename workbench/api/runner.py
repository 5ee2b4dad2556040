"""How the Python API runs a command: the same parse, the same handler, the same checks as ``lm-workbench``.

A call becomes its typed request (``lm_workbench.requests``), the request becomes the command line that says the
same (``argv_of``), and the CLI's own parser reads it back: the CLI's defaults, type conversions and choices apply,
and a bad value fails with the CLI's one line (``ArgumentError``, a ``WorkbenchError``). Then the command's code
runs in-process: a command computed in ``lm_workbench.command_results`` (its CLI handler calls the same function)
returns its result object; any other runs its CLI handler with the model the API already holds
(``lm_workbench.cli.common.using_loaded``) and its ``--json`` payload taken as an object
(``capturing_json``), so the result's ``to_dict()`` is the command's ``--json`` by construction. Light: the parser
and the handlers are imported when a call runs. Every command but ``gui`` is computed (``computed_for``); only
``lens --tuned``, ``patch --approx`` and ``generate --chat`` still run their handler.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.requests import PRESENTATION, Request


class ArgumentError(WorkbenchError):
    """An argument the command does not take (a value outside its choices, a missing required one): the CLI's
    own one-line message (``lm-workbench COMMAND`` would exit with code 2 on it)."""


@functools.lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    """The CLI's parser, built once per process (building it takes ~0.1 s; parsing reuses it)."""
    from lm_workbench.cli.parser import build_parser

    return build_parser()


def _leaf(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def _flag(action: argparse.Action) -> str:
    """The option string named like the field (``--target`` beside ``--answer``), else the first long one."""
    named = "--" + action.dest.replace("_", "-")
    if named in action.option_strings:
        return named
    return next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])


def _words(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def argv_of(request: Request, *, as_json: bool = True) -> list[str]:
    """The ``lm-workbench`` command line that asks for ``request`` (with ``--json`` where the command has it)."""
    words = request.COMMAND.split()
    leaf = _leaf(_parser(), words)
    options: list[str] = []
    positionals: list[str] = []
    names = {f.name for f in fields(request)}
    has_json = False
    for action in leaf._actions:
        if action.dest == "json":
            has_json = True
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.dest in PRESENTATION:
            continue
        if action.dest not in names:
            continue
        value = getattr(request, action.dest)
        if not action.option_strings:
            if not (action.nargs == "?" and value in (None, action.default)):
                positionals += _words(value)
            continue
        default = tuple(action.default) if isinstance(action.default, list) else action.default
        if value is None or (value == default and not action.required):
            continue
        flag = _flag(action)
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreConstAction)):
            if value:
                options.append(flag)
        elif isinstance(action, argparse._AppendAction):
            for item in _words(value):
                options.append(f"{flag}={item}")
        elif action.nargs in ("+", "*") or isinstance(action.nargs, int):
            options += [flag, *_words(value)]
        else:
            options.append(f"{flag}={value}")
    options += request.extra_argv()  # options the parser adds when it parses (finetune's method settings)
    return [*words, *positionals, *options, *(["--json"] if has_json and as_json else [])]


def parse(request: Request) -> argparse.Namespace:
    """The CLI's parse of ``request``'s command line; ``ArgumentError`` with the CLI's line when it refuses it."""
    from lm_workbench.cli.common import UsageError

    try:
        return _parser().parse_args(argv_of(request))
    except UsageError as exc:
        raise ArgumentError(str(exc)) from None


def run(request: Request, loaded: Any = None) -> Any:
    """``request`` run in-process as ``lm-workbench`` runs it, on ``loaded`` (a ``LoadedModel`` for the request's
    model spec, or None: the command loads what it names); its result object
    (``lm_workbench.command_results.results``). A command that writes a file (``FILE_OUTPUTS``) with ``out`` None
    writes nothing when computed here (``encode``: the result keeps its arrays), else writes it to a temporary
    folder and keeps its bytes (``save`` writes them); ``to_dict()['out']`` is None. Errors: the command's
    ``WorkbenchError`` (the CLI's line), ``ArgumentError`` for a refused argument."""
    from lm_workbench.api.naming import FILE_OUTPUTS
    from lm_workbench.command_results.computed import computed_for

    suffix = FILE_OUTPUTS.get(request.COMMAND)
    if suffix is None or computed_for(request) is not None:
        return _run(request, loaded)
    if request.out is not None:
        result = _run(request, loaded)
        result._file = Path(request.out).read_bytes()
        return result
    with tempfile.TemporaryDirectory(prefix="lm-workbench-") as folder:
        temp = Path(folder) / f"out{suffix}"
        result = _run(dataclasses.replace(request, out=str(temp)), loaded)
        result._file = temp.read_bytes() if temp.exists() else None
    result._data["out"] = None
    return result


def _run(request: Request, loaded: Any) -> Any:
    from lm_workbench.api.naming import FILE_OUTPUTS
    from lm_workbench.api.progress import progress_bar
    from lm_workbench.cli.common import capturing_json, load_for, using_loaded
    from lm_workbench.command_results.computed import MODELLESS, computed_for
    from lm_workbench.command_results.results import result_for
    from lm_workbench.requests import request_of

    unwritten = request.COMMAND in FILE_OUTPUTS and request.out is None  # the parser requires --out: a stand-in
    args = parse(dataclasses.replace(request, out=f"unwritten{FILE_OUTPUTS[request.COMMAND]}") if unwritten
                 else request)
    with using_loaded(getattr(request, "model", None), loaded), progress_bar():
        own = computed_for(request)
        if own is not None:
            parsed = request_of(args)
            model = None if request.COMMAND in MODELLESS else load_for(args)
            return own(dataclasses.replace(parsed, out=None) if unwritten else parsed, model)
        with capturing_json() as payloads:
            code = args.handler(args)
    return result_for(request.COMMAND, payloads[-1] if payloads else {}, exit_code=code)


def call(cls: type[Request], arguments: dict[str, Any], loaded: Any = None) -> Any:
    """``cls``'s request built from keyword ``arguments`` (lists made tuples) and run (``run``)."""
    from lm_workbench.requests.base import _frozen

    return run(cls(**{name: _frozen(value) for name, value in arguments.items()}), loaded)

"""How the Python API runs a command: the same parse, the same function, the same checks as ``lm-workbench``.

A call becomes its typed request (``lm_workbench.requests``), the request becomes the command line that says the
same (``argv_of``), and the CLI's own parser reads it back: the CLI's defaults, type conversions and choices apply,
and a bad value fails with the CLI's one line (``ArgumentError``, a ``WorkbenchError``). Then the command's code
runs in-process: every command but ``gui`` is computed in ``lm_workbench.command_results`` (``computed_for``), on
the model the API already holds (``lm_workbench.cli.common.using_loaded``), and returns its result object; the
CLI's handler calls the same function and prints that result's ``to_dict()`` as its ``--json``, so the two are one
code path. Light: the parser and the computing modules are imported when a call runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
from dataclasses import fields
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
    (``lm_workbench.command_results.results``). A command that writes a file (``FILE_OUTPUTS``: ``encode``,
    ``project``) with ``out`` None writes nothing: the result keeps the data and ``save`` writes the CLI's file.
    ``gui`` runs its CLI handler (it opens the window; the result holds its exit code). Errors: the command's
    ``WorkbenchError`` (the CLI's line), ``ArgumentError`` for a refused argument."""
    from lm_workbench.api.naming import FILE_OUTPUTS
    from lm_workbench.api.progress import progress_bar
    from lm_workbench.cli.common import load_for, using_loaded
    from lm_workbench.command_results.computed import MODELLESS, computed_for
    from lm_workbench.command_results.results import result_for
    from lm_workbench.requests import request_of

    unwritten = request.COMMAND in FILE_OUTPUTS and request.out is None  # the parser requires --out: a stand-in
    args = parse(dataclasses.replace(request, out=f"unwritten{FILE_OUTPUTS[request.COMMAND]}") if unwritten
                 else request)
    own = computed_for(request)
    if own is None:  # gui: the window
        return result_for(request.COMMAND, {}, exit_code=args.handler(args))
    with using_loaded(getattr(request, "model", None), loaded), progress_bar():
        parsed = request_of(args)
        model = None if request.COMMAND in MODELLESS else load_for(args)
        return own(dataclasses.replace(parsed, out=None) if unwritten else parsed, model)


def call(cls: type[Request], arguments: dict[str, Any], loaded: Any = None) -> Any:
    """``cls``'s request built from keyword ``arguments`` (lists made tuples) and run (``run``). ``model`` may be a
    loaded ``Model`` (a function that is also its method, ``m.finetune(...)``): the command runs on it."""
    from lm_workbench.requests.base import _frozen

    model = arguments.get("model")
    if not isinstance(model, str) and hasattr(model, "_run"):  # a Model (not imported: it imports the functions)
        return model._run(cls, {k: v for k, v in arguments.items() if k != "model"})
    return run(cls(**{name: _frozen(value) for name, value in arguments.items()}), loaded)

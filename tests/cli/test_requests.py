"""Typed requests (issue 43.5): one frozen dataclass per command with exactly the CLI's arguments and defaults.

The options are derived from the parser itself (``build_parser``), so a flag added to a command without its
field in ``lm_workbench.requests`` fails here, as does a field the parser does not have or a default that
differs."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from lm_workbench.cli.parser import build_parser
from lm_workbench.requests import PRESENTATION, REQUESTS, PatchRequest, request_of


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    sub = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not sub:
        yield " ".join(prefix), parser
        return
    for name, child in sub[0].choices.items():
        yield from _leaves(child, prefix + (name,))


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """dest -> action of every option that says what a command computes (not how it prints)."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.dest in PRESENTATION:
            continue
        found.setdefault(action.dest, action)
    return found


COMMANDS = dict(_leaves(build_parser()))


def test_every_command_has_a_request_and_every_request_a_command():
    assert set(REQUESTS) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_request_has_the_parsers_options_and_defaults(command):
    cls, options = REQUESTS[command], _options(COMMANDS[command])
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    fields = {f.name: f for f in dataclasses.fields(cls)}
    assert set(fields) == set(options), f"{command}: fields and the parser's options differ"
    for name, action in options.items():
        field = fields[name]
        required = action.required or (not action.option_strings and action.nargs not in ("?", "*"))
        has_default = field.default is not dataclasses.MISSING
        assert has_default is not required, f"{command} {name}: required on the CLI iff no default here"
        if has_default:
            default = tuple(action.default) if isinstance(action.default, list) else action.default
            assert field.default == default, f"{command} {name}: default {field.default!r}, CLI {default!r}"
        if action.type in (int, float):
            assert action.type.__name__ in str(field.type), f"{command} {name}: {field.type} for {action.type}"
        if isinstance(action, argparse._StoreTrueAction):
            assert "bool" in str(field.type)


# (command line, fields the request must have): aliases and repeatable options as the CLI takes them
ROWS = [
    (["patch", "minilm", "--clean", "a b", "--corrupt", "a c", "--answer", " x", "--wrong", " y", "--json"],
     {"model": "minilm", "target": " x", "contrast": " y", "site": "resid", "noise_samples": 10}),
    (["patch", "course:gpt2", "--clean", "a b", "--subject", "a", "--target", " x", "--contrast", " y"],
     {"model": "course:gpt2", "target": " x", "contrast": " y", "subject": "a", "corrupt": None}),
    (["compare", "minilm", "run/dir", "--text", "one", "--text", "two", "--device", "cpu"],
     {"model_a": "minilm", "model_b": "run/dir", "text": ("one", "two"), "device": "cpu", "precision": None}),
    (["presets", "verify", "a.json", "b.json"], {"presets": ("a.json", "b.json")}),
    (["fill-mask", "minilm", "--text", "a [MASK]", "--k", "3", "--precision", "float32"],
     {"text": "a [MASK]", "k": 3, "precision": "float32", "threads": None}),
]


@pytest.mark.parametrize("argv,expected", ROWS)
def test_the_cli_builds_the_request_from_its_parsed_arguments(argv, expected):
    request = request_of(build_parser().parse_args(argv))
    assert type(request).COMMAND == (" ".join(argv[:2]) if argv[0] == "presets" else argv[0])
    assert {k: getattr(request, k) for k in expected} == expected
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.model = "other"  # type: ignore[misc]


def test_a_request_is_built_from_keyword_arguments_with_the_cli_defaults():
    request = PatchRequest(model="minilm", clean="a b", corrupt="a c", target=" x")
    assert request == request_of(build_parser().parse_args(
        ["patch", "minilm", "--clean", "a b", "--corrupt", "a c", "--target", " x"]))
    with pytest.raises(TypeError):
        PatchRequest("minilm", "a b")  # keyword-only: the API names every argument

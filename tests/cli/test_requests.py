"""Typed requests (issue 43.5): one frozen dataclass per command with exactly the CLI's arguments and defaults.

The options are derived from the parser itself (``build_parser``), so a flag added to a command without its
field in ``lm_workbench.requests`` fails here, as does a field the parser does not have or a default that
differs."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from lm_workbench.cli.parser import build_parser
from lm_workbench.finetune.method_settings import OPTION_PREFIX
from lm_workbench.requests import PRESENTATION, REQUESTS, FinetuneRequest, PatchRequest, request_of
from tests.support.cli_tree import command_parsers

# A command whose parser adds options when it first parses (``finetune``: one ``--<method>-<setting>`` per field of
# each method's Config, so that other commands never import the method plugins) -> the one field holding them all.
DYNAMIC = {"finetune": "method_settings"}


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """dest -> action of every option that says what a command computes (not how it prints); the options added
    when the command parses (``_dynamic``) are left out."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.dest in PRESENTATION or action in _dynamic(parser):
            continue
        found.setdefault(action.dest, action)
    return found


def _dynamic(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The method options of the ``finetune`` parser (there once it has parsed a line)."""
    return [a for a in parser._actions if a.dest.startswith(OPTION_PREFIX)]


COMMANDS = command_parsers()


def test_every_command_has_a_request_and_every_request_a_command():
    assert set(REQUESTS) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_request_has_the_parsers_options_and_defaults(command):
    parser = COMMANDS[command]
    if command in DYNAMIC:
        parser.parse_known_args([])  # as the CLI does: the first parse adds the options made when it parses
    cls, options, dynamic = REQUESTS[command], _options(parser), _dynamic(parser)
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    fields = {f.name: f for f in dataclasses.fields(cls)}
    assert bool(dynamic) is (command in DYNAMIC), f"{command}: options added when parsing, and no field for them"
    if dynamic:  # all of them one field, given when any is given: none is required, each defaults to not given
        field = fields.pop(DYNAMIC[command])
        assert field.default == () and all(a.default is None and not a.required for a in dynamic), command
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
    # a method's settings: (setting, value as typed) pairs sorted by setting; none given: ()
    (["finetune", "--method", "lora", "--lora-rank", "4", "--lora-alpha=8", "--lora-target-modules", "query,key"],
     {"method": "lora", "method_settings": (("alpha", "8"), ("rank", "4"), ("target_modules", "query,key"))}),
    (["finetune", "--method", "houlsby", "--houlsby-reduction-factor", "4", "--houlsby-train-layer-norms", "false"],
     {"method_settings": (("reduction_factor", "4"), ("train_layer_norms", "false"))}),
    (["finetune", "--method", "lora", "--epochs", "1"], {"method_settings": (), "epochs": 1.0}),
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


def test_the_finetune_parser_has_one_option_per_setting_of_each_method_once_it_parses():
    from lm_workbench.finetune.methods import finetune_methods

    parser = command_parsers()["finetune"]
    assert _dynamic(parser) == []  # none before the first parse: building the parser reads no method plugin
    parser.parse_known_args([])
    expected = {f"--{name}-{f.name.replace('_', '-')}" for name, method in finetune_methods().items()
                for f in dataclasses.fields(method.Config)}
    assert "--lora-rank" in expected and "--houlsby-reduction-factor" in expected
    assert {o for a in _dynamic(parser) for o in a.option_strings} == expected


def test_a_finetune_request_takes_its_method_settings_as_a_mapping():
    request = FinetuneRequest(method="lora", method_settings={"rank": "4", "target-modules": "query,key"})
    assert request.method_settings == (("rank", "4"), ("target_modules", "query,key"))
    assert request == request_of(build_parser().parse_args(
        ["finetune", "--method", "lora", "--lora-target-modules", "query,key", "--lora-rank", "4"]))

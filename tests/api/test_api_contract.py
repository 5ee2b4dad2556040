"""The Python API's contract (issue 44): every command has its API name, each method's and function's arguments
are its typed request's fields with the CLI's defaults, the generated files say what the requests say, and the
public names are listed."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from pathlib import Path

import pytest

import lm_workbench.api as api
from lm_workbench.api.naming import FILE_OUTPUTS, FUNCTIONS, MODEL_METHODS, POSITIONAL, model_fields
from lm_workbench.requests import REQUESTS

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_has_an_api_name():
    named = set(MODEL_METHODS) | set(FUNCTIONS)
    assert set(REQUESTS) <= named, f"commands without an API name: {sorted(set(REQUESTS) - named)}"


def _check(command, function, fields, method=False):
    params = list(inspect.signature(function).parameters.values())[1 if method else 0:]  # a method's self / model
    names = {f.name for f in fields}
    positional = [name for name in POSITIONAL.get(command, ()) if name in names]
    assert [p.name for p in params] == positional + [f.name for f in fields if f.name not in positional], command
    by_name = {f.name: f for f in fields}
    for p in params:
        field = by_name[p.name]
        assert (p.kind is p.KEYWORD_ONLY) is not (p.name in positional), f"{command} {p.name}: keyword-only unless positional"
        if field.name == "out" and command in FILE_OUTPUTS:
            assert p.default is None, command
        elif field.default is dataclasses.MISSING:
            assert p.default is p.empty, f"{command} {p.name}: required on the CLI, required here"
        else:
            assert p.default == field.default, f"{command} {p.name}: {p.default!r} here, {field.default!r} on the CLI"


@pytest.mark.parametrize("command", sorted(MODEL_METHODS))
def test_model_methods_take_the_requests_fields_and_defaults(command):
    _check(command, getattr(api.Model, MODEL_METHODS[command]), model_fields(REQUESTS[command]), method=True)


@pytest.mark.parametrize("command", sorted(FUNCTIONS))
def test_functions_take_the_requests_fields_and_defaults(command):
    _check(command, getattr(api, FUNCTIONS[command]), dataclasses.fields(REQUESTS[command]))


def test_the_generated_files_are_what_the_generator_writes_now():
    spec = importlib.util.spec_from_file_location("generate_api", ROOT / "scripts" / "generate_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = ROOT / "workbench" / "api"
    for name, text in module.generated_files().items():
        assert (folder / name).read_text(encoding="utf-8") == text, f"{name}: run scripts/generate_api.py"
    assert not module.stale_files(folder), "a group's file no longer generated: run scripts/generate_api.py"


def test_every_command_is_in_one_group_of_generated_files():
    from lm_workbench.api.naming import FUNCTION_GROUPS, MODEL_METHOD_GROUPS

    for groups, names in ((MODEL_METHOD_GROUPS, MODEL_METHODS), (FUNCTION_GROUPS, FUNCTIONS)):
        grouped = [command for commands in groups.values() for command in commands]
        assert sorted(grouped) == sorted(names), "each command in exactly one group"


def test_public_names_resolve_and_version():
    import lm_workbench as lw

    assert api.API_VERSION == "1.0"
    for name in api.__all__:
        assert getattr(api, name) is not None and getattr(lw, name) is not None, name
    for name in ("compare", "finetune", "pretrain", "runs"):  # also internal packages: called, they are the API's
        import importlib

        importlib.import_module(f"lm_workbench.{name}")
        assert callable(getattr(lw, name))
        assert inspect.signature(getattr(lw, name)) == inspect.signature(getattr(api.functions, name))
    assert issubclass(api.ArgumentError, api.WorkbenchError)


def test_the_docs_page_names_every_public_name():
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    named = {**MODEL_METHODS, **FUNCTIONS}
    missing = [name for name in named.values() if f".{name}(" not in text]
    assert missing == [], f"docs/python-api.md does not show: {missing}"
    assert "deprecation" in text.lower() and api.API_VERSION in text

"""Typed requests: one frozen dataclass per CLI command, holding exactly its arguments and defaults.

The CLI builds them from its parsed arguments (``request_of(args)``), the Python API from keyword arguments
(``PatchRequest(model="minilm", clean=..., target=...)``), and the jobs of the workbench and the engine take
them. ``REQUESTS`` maps each command as typed (``"fill-mask"``, ``"presets verify"``) to its class;
``tests/cli/test_requests.py`` derives every command's options from the parser and checks the fields and
defaults against them, so a flag added without its field fails. Rules: ``lm_workbench.requests.base``.
Light: no torch.
"""

from __future__ import annotations

import argparse
import inspect

from lm_workbench.requests import course_commands, model_commands, other_commands, sae_commands
from lm_workbench.requests.base import PRESENTATION, ModelRequest, Request
from lm_workbench.requests.model_commands import *  # noqa: F403 - every request class by name
from lm_workbench.requests.other_commands import *  # noqa: F403
from lm_workbench.requests.course_commands import *  # noqa: F403
from lm_workbench.requests.sae_commands import *  # noqa: F403

REQUESTS: dict[str, type[Request]] = {
    cls.COMMAND: cls
    for module in (model_commands, other_commands, course_commands, sae_commands)
    for _, cls in inspect.getmembers(module, inspect.isclass)
    if issubclass(cls, Request) and cls.COMMAND
}


def command_of(args: argparse.Namespace) -> str:
    """The command a parsed command line names, as ``REQUESTS`` keys it (``"presets verify"`` for a nested one:
    the second word is the value of the command's sub-command option)."""
    found = [key for key in REQUESTS if key.split()[0] == args.command]
    if len(found) == 1:
        return found[0]
    words = {v for v in vars(args).values() if isinstance(v, str)}
    nested = [key for key in found if key.split()[1] in words]
    if len(nested) != 1:
        raise KeyError(f"no request for the command {args.command!r}")
    return nested[0]


def request_of(args: argparse.Namespace) -> Request:
    """The typed request of a parsed command line."""
    return REQUESTS[command_of(args)].from_namespace(args)


__all__ = ["PRESENTATION", "REQUESTS", "ModelRequest", "Request", "command_of", "request_of",
           *(cls.__name__ for cls in REQUESTS.values())]

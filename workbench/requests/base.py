"""The requests' common part: ``Request`` (every command's), ``ModelRequest`` (a command that reads one model:
the model spec and the model options every such command takes), and the builder from the CLI's parsed arguments.

A request holds a command's arguments exactly as the CLI takes them: field names are the flags' names with
underscores (``--noise-scale`` -> ``noise_scale``; a positional keeps its name), defaults are the CLI's defaults
(None where the CLI leaves a choice to the user's settings: ``device``, ``precision``...), a repeatable or
many-valued option is a tuple; the options a command's parser adds only when it parses are one field
(``finetune``'s ``--<method>-<setting>``: ``method_settings``, ``(setting, value)`` pairs; ``extra_argv`` gives
them back as options). How the CLI prints (``--json``, ``--progress``) is not part of a request
(``PRESENTATION``). Requests are frozen and keyword-only, so the Python API builds them from keyword arguments
and a view's state from its form. Light: no torch.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

PRESENTATION = frozenset({"json", "progress"})  # how the CLI prints a result, not what it computes

R = TypeVar("R", bound="Request")


@dataclass_transform(kw_only_default=True, frozen_default=True)
@dataclass(frozen=True, kw_only=True)
class Request:
    """A command's arguments. ``COMMAND`` is the command as typed (``"fill-mask"``, ``"presets verify"``), given
    as the class keyword ``command``: ``class FillMaskRequest(ModelRequest, command="fill-mask")``. Every subclass
    is a frozen, keyword-only dataclass without a decorator of its own (``dataclass_transform`` tells type checkers
    so)."""

    COMMAND: ClassVar[str] = ""

    def __init_subclass__(cls, command: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.COMMAND = command  # a base of requests (no command) is in no table, also below a command's class
        dataclass(frozen=True, kw_only=True)(cls)

    @classmethod
    def from_namespace(cls: type[R], args: argparse.Namespace) -> R:
        """The request of a parsed command line (``build_parser().parse_args(...)``): each field read from the
        attribute of its name, lists made tuples. ``AttributeError`` when the parser has no such option (the
        request and the parser disagree: ``tests/cli/test_requests.py`` catches that first)."""
        return cls(**{f.name: _frozen(getattr(args, f.name)) for f in fields(cls)})

    def extra_argv(self) -> list[str]:
        """Command-line words for what no option of the parser built up front names (a command's options added
        when it is parsed: ``finetune``'s ``--<method>-<setting>``); none for most commands."""
        return []

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (tuples kept)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class ModelRequest(Request):
    """A command that reads one model: the spec (any kind the one loader takes: ``lm_workbench.models.loader``)
    and the model options (``lm_workbench.cli.common.add_model_options``); None leaves the user's setting."""

    model: str  # positional: a folder, a hub id, course:<family>, a run folder or minilm
    device: str | None = None  # --device
    precision: str | None = None  # --precision
    threads: int | None = None  # --threads
    words: str | None = None  # --words
    offline: bool | None = None  # --offline
    allow_pickle: bool | None = None  # --allow-pickle
    trust_remote_code: bool | None = None  # --trust-remote-code


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value

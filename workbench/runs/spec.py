"""``RunSpec``: the base of every run's spec dataclass (pre-training, fine-tuning, probing, STS, scalar mix,
prompt evaluation).

A spec is one JSON-able record: the run's ``params`` in the run store (``to_dict``), the long-run job's keyword
arguments (``from_dict``), the form's state and the ``lm-workbench`` command line that repeats the run
(``cli_command``). Subclasses are dataclasses that name what they are (``WHAT``, for messages), say which
fields a stored record must have (``REQUIRED``), check their values (``check``) and list their command-line
arguments (``cli_args``). Kept light: no torch.
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import Any, ClassVar, TypeVar

from lm_workbench.engine.errors import WorkbenchError

S = TypeVar("S", bound="RunSpec")


def unknown_keys_error(what: str, unknown: list[str]) -> WorkbenchError:
    """The one message for settings a spec does not have: ``unknown <what> setting(s): a, b``."""
    return WorkbenchError(f"unknown {what} setting(s): {', '.join(sorted(unknown))}")


class RunSpec:
    """Mixin for a run's spec dataclass: ``to_dict`` / ``from_dict`` (with the one unknown-key check) /
    ``cli_command``."""

    WHAT: ClassVar[str] = "run"  # "pre-training", "probing", ...: how messages name this kind of run
    REQUIRED: ClassVar[tuple[str, ...]] = ()  # keys a stored record must have (others may take their defaults)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (lists and dicts copied)."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any]) -> S:
        """Build a spec from ``to_dict`` output; an unknown key (or a missing ``REQUIRED`` one) is a
        ``WorkbenchError``."""
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - names)
        if unknown:
            raise unknown_keys_error(cls.WHAT, unknown)
        missing = [n for n in cls.REQUIRED if n not in data]
        if missing:
            raise WorkbenchError(f"a {cls.WHAT} run needs {', '.join(missing)}")
        return cls(**cls.normalise(dict(data)))

    @classmethod
    def normalise(cls, values: dict[str, Any]) -> dict[str, Any]:
        """Stored values made the types the fields hold (a subclass's hook; as they are by default)."""
        return values

    def check(self) -> None:
        """Raise ``WorkbenchError`` for a value that cannot work, before anything heavy starts."""

    def checked(self: S) -> S:
        """This spec, after ``check``."""
        self.check()
        return self

    def cli_args(self) -> list[str]:
        """The ``lm-workbench ...`` command line as a list of arguments."""
        raise NotImplementedError

    def cli_command(self) -> str:
        """The equivalent ``lm-workbench ...`` command line (shell-quoted)."""
        return shlex.join(self.cli_args())

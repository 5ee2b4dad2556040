"""The kinds of recorded runs the runs browser knows, and how to redo each one.

Each ``RunKind`` names the long-run lane target that runs it and turns a run's stored ``params`` back into the
equivalent command line, so "run again with this config" (``LongRunLane.submit(kind.target, params,
kind=kind.kind)``) and "copy as CLI command" work for every kind without the browser knowing any of them.
Kinds register themselves beside their spec, through the entry-point group ``lm_workbench.run_kinds`` (each
entry names a ``RunKind``), as objectives and fine-tuning methods do: the built-in ones exactly as a third
party's would, so this module imports no area. Kept light: no torch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

GROUP = "lm_workbench.run_kinds"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunKind:
    """A kind of run: the store's ``kind`` value, the job target, a title and the CLI line for given params."""

    kind: str
    target: str
    title: str
    command: Callable[[dict[str, Any]], str]
    resumable: bool = False  # a stopped run continues from its checkpoints (params "resume" = its out_dir)

    def cli_command(self, params: dict[str, Any]) -> str:
        """The ``lm-workbench ...`` command line that repeats a run with these params.

        Params this version cannot read (a run stored by another version) raise a ``WorkbenchError``.
        """
        from lm_workbench.engine.errors import WorkbenchError

        try:
            return self.command(params)
        except (KeyError, TypeError, ValueError) as exc:
            raise WorkbenchError(f"this {self.title.lower()} run's settings cannot be turned into a command "
                                 f"line by this version (missing or odd: {exc})") from None


def spec_command(spec_class: type) -> Callable[[dict[str, Any]], str]:
    """A ``RunKind.command`` for a ``RunSpec`` class: its ``cli_command`` of the params read back."""
    def command(params: dict[str, Any]) -> str:
        return spec_class.from_dict(params).cli_command()

    return command


def discover_run_kinds(entries: Any = None) -> dict[str, RunKind]:
    """{kind: RunKind} from the entry-point group (or ``entries``, for tests); a broken entry is logged and
    left out, so one bad plugin cannot hide the others."""
    if entries is None:
        from importlib.metadata import entry_points

        entries = entry_points(group=GROUP)
    kinds: dict[str, RunKind] = {}
    for entry in entries:
        try:
            kind = entry.load()
        except Exception:  # noqa: BLE001 - a plugin's import error must not take the runs browser down
            log.exception("run kind %s could not be loaded", entry.name)
            continue
        if not isinstance(kind, RunKind) or kind.kind != entry.name:
            log.error("run kind entry %s is not a RunKind named %s", entry.name, entry.name)
            continue
        kinds[kind.kind] = kind
    return kinds


_KINDS: dict[str, RunKind] | None = None


def run_kinds() -> dict[str, RunKind]:
    """Every registered kind (discovered once per process)."""
    global _KINDS
    if _KINDS is None:
        _KINDS = discover_run_kinds()
    return _KINDS


def run_kind(kind: str) -> RunKind | None:
    """The entry for a store ``kind``, or None for a kind this version does not know."""
    return run_kinds().get(kind)


def resume_params(kind: RunKind, run: dict[str, Any]) -> dict[str, Any] | None:
    """The params that continue a stopped run from its newest checkpoint, or None when it cannot be resumed
    (its kind does not resume, it finished or is still going, or it left no checkpoint)."""
    from lm_workbench.runs.resume import resumable_checkpoint

    params = dict(run.get("params") or {})
    if not kind.resumable or run.get("status") not in ("cancelled", "failed", "interrupted"):
        return None
    if resumable_checkpoint(params.get("out_dir")) is None:
        return None
    params["resume"] = str(params["out_dir"])
    return params

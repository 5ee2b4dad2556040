"""The objectives that can be used, and guarded calls into them.

``ObjectiveRegistry.discover()`` finds every plugin (see ``discovery``);
``objective(name)`` hands out a working one or explains in one line why it
cannot. ``make_batch`` and ``loss`` call a plugin's code: a ``WorkbenchError``
it raises (bad input) passes through; any other exception marks the plugin
broken (status error, with the message) and becomes a ``PluginFailedError``,
so the workbench and the other plugins carry on.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from engine.errors import WorkbenchError
from engine.plugin_api import Batch, Objective, call_loss
from workbench.plugins.discovery import discover
from workbench.plugins.records import DISABLED, OK, PluginRecord, one_line


class PluginFailedError(WorkbenchError):
    """A plugin raised an unexpected exception; it is now marked broken."""


class ObjectiveRegistry:
    def __init__(self, records: list[PluginRecord]):
        self.records = list(records)
        self._instances: dict[str, Objective] = {}

    @classmethod
    def discover(cls, settings: Any = None, root: Any = None) -> "ObjectiveRegistry":
        return cls(discover(settings, root))

    def names(self) -> list[str]:
        """Names of the objectives that work, sorted."""
        return sorted({r.name for r in self.records if r.status == OK})

    def record(self, name: str) -> PluginRecord:
        for r in self.records:
            if r.name == name and r.status == OK:
                return r
        for r in self.records:
            if r.name == name:
                return r
        raise WorkbenchError(f"unknown objective {name!r}; available: {', '.join(self.names()) or 'none'}")

    def objective(self, name: str) -> Objective:
        """A working objective by name; ``WorkbenchError`` for an unknown, broken or disabled one."""
        record = self.record(name)
        if record.status == DISABLED:
            raise WorkbenchError(f"objective {name!r} is a folder plugin that is not enabled; enable it in the settings")
        if record.status != OK:
            raise WorkbenchError(f"objective {name!r} cannot be used: {record.error}")
        if name not in self._instances:
            with self.guard(record, "starting"):
                self._instances[name] = record.objective_class()
        return self._instances[name]

    @contextlib.contextmanager
    def guard(self, record: PluginRecord, what: str) -> Iterator[None]:
        """Turn a plugin's unexpected exception into a recorded error and a ``PluginFailedError``."""
        try:
            yield
        except WorkbenchError:
            raise
        except Exception as exc:  # the plugin's own bug
            text = one_line(exc)
            record.fail(f"{what} raised {type(exc).__name__}" + (f": {text}" if text else ""))
            self._instances.pop(record.name, None)
            raise PluginFailedError(f"objective {record.name!r} failed: {record.error}") from exc

    def make_batch(self, name: str, token_ids: list[list[int]], tokenizer: Any, rng: Any, config: Any, *,
                   example_ids: Sequence[int] | None = None) -> Batch:
        objective = self.objective(name)
        record = self.record(name)
        with self.guard(record, "make_batch"):
            batch = objective.make_batch(token_ids, tokenizer, rng, config, example_ids=example_ids)
            if not isinstance(batch, Batch) or len(batch.previews) != len(token_ids):
                raise TypeError(f"make_batch must return a Batch with one preview per example, not {batch!r}")
        return batch

    def loss(self, name: str, model: Any, heads: dict[str, Any], batch: Batch,
             aux: dict[str, Any] | None = None) -> tuple[Any, dict[str, float]]:
        """The objective's loss; ``aux`` holds its frozen auxiliary models (a distillation teacher)."""
        objective = self.objective(name)
        with self.guard(self.record(name), "loss"):
            return call_loss(objective, model, heads, batch, aux)

    def to_dicts(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.records]

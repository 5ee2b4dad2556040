"""The plugins that can be used, by kind, and guarded calls into them.

``PluginRegistry`` holds the discovered records of its kind (see
``discovery``), plus folder plugins whose manifest is too broken to say a
kind, and hands out working contributions of its kind: ``contribution(name)`` or a
one-line reason why not. ``FineTuneMethodRegistry`` hands out fine-tuning
methods. ``ObjectiveRegistry`` is the one for objectives;
its ``make_batch`` and ``loss`` call a plugin's code: a ``WorkbenchError``
it raises (bad input) passes through; any other exception marks the plugin
broken (status error, with the message) and becomes a ``PluginFailedError``,
so the workbench and the other plugins carry on.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import Batch, FineTuneMethod, LossContext, Objective
from lm_workbench.extensions.discovery import discover
from lm_workbench.extensions.extension_kind import ExtensionKind
from lm_workbench.extensions.finetune_method_kind import FINETUNE_METHODS
from lm_workbench.extensions.objective_kind import OBJECTIVES
from lm_workbench.extensions.records import DISABLED, OK, PluginRecord, one_line


class PluginFailedError(WorkbenchError):
    """A plugin raised an unexpected exception; it is now marked broken."""


class PluginRegistry:
    """The records of one kind (and kind-less broken ones, so that listings show them); lookups by name."""

    kind: ExtensionKind

    def __init__(self, records: list[PluginRecord], kind: ExtensionKind):
        self.kind = kind
        self.records = [r for r in records if r.kind in (kind.name, "")]
        self._instances: dict[str, Any] = {}

    def _own(self) -> list[PluginRecord]:
        return [r for r in self.records if r.kind == self.kind.name]

    def names(self) -> list[str]:
        """Names of the working contributions of this kind, sorted."""
        return sorted({r.name for r in self._own() if r.status == OK})

    def record(self, name: str) -> PluginRecord:
        own = [r for r in self._own() if r.name == name]
        for r in own:
            if r.status == OK:
                return r
        if own:
            return own[0]
        raise WorkbenchError(f"unknown {self.kind.name} {name!r}; available: {', '.join(self.names()) or 'none'}")

    def contribution(self, name: str) -> Any:
        """An instance of a working contribution; ``WorkbenchError`` for an unknown, broken or disabled one."""
        record = self.record(name)
        what = self.kind.name
        if record.status == DISABLED:
            raise WorkbenchError(f"{what} {name!r} is a folder plugin that is not enabled; enable it in the settings")
        if record.status != OK:
            raise WorkbenchError(f"{what} {name!r} cannot be used: {record.error}")
        if name not in self._instances:
            with self.guard(record, "starting"):
                self._instances[name] = record.plugin_class()
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
            raise PluginFailedError(f"{self.kind.name} {record.name!r} failed: {record.error}") from exc

    def to_dicts(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.records]


class ObjectiveRegistry(PluginRegistry):
    def __init__(self, records: list[PluginRecord]):
        super().__init__(records, OBJECTIVES)

    @classmethod
    def discover(cls, settings: Any = None, root: Any = None) -> "ObjectiveRegistry":
        return cls(discover(settings, root))

    def objective(self, name: str) -> Objective:
        """A working objective by name; ``WorkbenchError`` for an unknown, broken or disabled one."""
        return self.contribution(name)

    def make_batch(self, name: str, token_ids: list[list[int]], tokenizer: Any, rng: Any, config: Any, *,
                   example_ids: Sequence[int] | None = None) -> Batch:
        objective = self.objective(name)
        record = self.record(name)
        with self.guard(record, "make_batch"):
            batch = objective.make_batch(token_ids, tokenizer, rng, config, example_ids=example_ids)
            if not isinstance(batch, Batch) or len(batch.previews) != len(token_ids):
                raise TypeError(f"make_batch must return a Batch with one preview per example, not {batch!r}")
        return batch

    def loss(self, name: str, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        """The objective's loss; ``context`` holds its config, heads and frozen auxiliary models."""
        objective = self.objective(name)
        with self.guard(self.record(name), "loss"):
            return objective.loss(model, batch, context)


class FineTuneMethodRegistry(PluginRegistry):
    def __init__(self, records: list[PluginRecord]):
        super().__init__(records, FINETUNE_METHODS)

    @classmethod
    def discover(cls, settings: Any = None, root: Any = None) -> "FineTuneMethodRegistry":
        return cls(discover(settings, root))

    def method(self, name: str) -> FineTuneMethod:
        """A working method by name; ``WorkbenchError`` for an unknown, broken or disabled one."""
        return self.contribution(name)

    def methods(self) -> dict[str, FineTuneMethod]:
        """Every working method by name (built-ins and enabled folder plugins), sorted by name."""
        return {name: self.method(name) for name in self.names()}

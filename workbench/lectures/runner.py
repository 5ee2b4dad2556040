"""``PresetRunner``: which preset is running and which of its steps is current (no Qt).

The window's lecture controller listens (``runner.events.<name>.connect``)
and opens each step; Next/Previous (buttons, PageDown/PageUp, a presentation
clicker) only move the index here, so the stepping can be driven and checked
without a window.

Events: ``started`` [preset], ``step_changed`` [index], ``stopped`` [].
"""

from __future__ import annotations

from lm_workbench.lectures.availability import PresetStatus, StepStatus
from lm_workbench.lectures.schema import Preset, PresetStep
from lm_workbench.observable import EventGroup


class PresetRunner:
    def __init__(self) -> None:
        self.events = EventGroup("started", "step_changed", "stopped")
        self.preset: Preset | None = None
        self.status: PresetStatus | None = None
        self.index = 0

    @property
    def active(self) -> bool:
        return self.preset is not None

    def start(self, preset: Preset, status: PresetStatus, index: int = 0) -> None:
        """Run ``preset`` from step ``index`` (refused when the preset is not available)."""
        if not status.available:
            raise ValueError(f"the preset {preset.name!r} is not available: {status.reason}")
        self.preset, self.status = preset, status
        self.index = max(0, min(int(index), len(preset.steps) - 1))
        self.events.started.emit(preset)
        self.events.step_changed.emit(self.index)

    def stop(self) -> None:
        if self.preset is None:
            return
        self.preset = self.status = None
        self.index = 0
        self.events.stopped.emit()

    def go(self, index: int) -> bool:
        """Make step ``index`` current; False (nothing changes) when there is no such step."""
        if self.preset is None or not 0 <= index < len(self.preset.steps) or index == self.index:
            return False
        self.index = index
        self.events.step_changed.emit(index)
        return True

    def next(self) -> bool:
        return self.go(self.index + 1)

    def previous(self) -> bool:
        return self.go(self.index - 1)

    def count(self) -> int:
        return len(self.preset.steps) if self.preset is not None else 0

    def step(self) -> PresetStep:
        if self.preset is None:
            raise RuntimeError("no preset is running")
        return self.preset.steps[self.index]

    def step_status(self) -> StepStatus:
        if self.status is None:
            raise RuntimeError("no preset is running")
        return self.status.steps[self.index]

    def caption(self) -> str:
        """"Step i/n: caption", with the reason when this step cannot be shown here."""
        if self.preset is None:
            return ""
        text = f"Step {self.index + 1}/{self.count()}: {self.step().caption}"
        status = self.step_status()
        return text if status.available else f"{text} (not available here: {status.reason})"

"""The Qt-free Next/Previous controller: the stepper pushed last gets the steps; events say what happened."""

from __future__ import annotations

import pytest

from lm_workbench.clicker import Clicker


class Counter:
    def __init__(self, last: int):
        self.at, self.last = 0, last

    def next(self) -> bool:
        if self.at >= self.last:
            return False
        self.at += 1
        return True

    def previous(self) -> bool:
        if self.at <= 0:
            return False
        self.at -= 1
        return True


def test_the_last_pushed_stepper_steps_and_removing_it_hands_back():
    steps = Clicker()
    changed, stepped = [], []
    steps.events.changed.connect(lambda: changed.append(steps.active()))
    steps.events.stepped.connect(lambda direction, moved: stepped.append((direction, moved)))
    assert steps.next() is False and steps.previous() is False and stepped == []  # nothing pushed
    preset, panel = Counter(3), Counter(1)
    steps.push(preset)
    steps.push(panel)
    assert steps.active() is panel and changed == [preset, panel]
    assert steps.next() is True  # the panel moves to its last step
    assert steps.next() is True  # the panel cannot move: the key falls through to the preset below it
    assert (panel.at, preset.at) == (1, 1) and stepped == [(1, True), (1, True)]
    steps.push(panel)  # already on top: nothing changes
    assert len(changed) == 2
    steps.remove(panel)
    assert steps.active() is preset and steps.next() and steps.previous() and preset.at == 1
    steps.push(panel)
    steps.push(preset)  # pushed again: moved to the top, not added twice
    steps.remove(preset)
    assert steps.active() is panel
    steps.remove(preset)  # absent: nothing happens
    with pytest.raises(TypeError, match="no next"):
        steps.push(object())

"""Threads for a training run beside other work (issue 48): as many as the cores other processes leave free.

``free_cpu_threads`` is checked against the formula written here (cores - round(busy), clamped to
[1, cap]) over a table with the reported case (2 cores, one busy process: 1 thread), and ``busy_cores`` against
a real busy process of the test's own.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from lm_workbench.engine.models import device


@pytest.mark.parametrize("cores, busy, cap, expected", [
    (2, 1.0, 2, 1),  # the reported case: 2 cores, one busy process beside the build
    (2, 0.0, 2, 2),  # a quiet machine: both
    (2, 0.4, 2, 2),  # a little background work rounds to none
    (2, 3.0, 2, 1),  # an overloaded machine: still one thread
    (16, 5.0, 8, 8),  # OMP_NUM_THREADS caps it
    (16, 5.0, 16, 11),
])
def test_free_threads_table(monkeypatch, cores, busy, cap, expected):
    monkeypatch.setattr(device, "default_cpu_threads", lambda: cores)
    assert device.free_cpu_threads(cap, busy=busy) == expected


@settings(derandomize=True, deadline=None, max_examples=20)
@given(cores=st.integers(1, 64), busy=st.floats(0, 100), cap=st.integers(1, 64))
def test_free_threads_formula(cores, busy, cap):
    original = device.default_cpu_threads
    device.default_cpu_threads = lambda: cores
    try:
        got = device.free_cpu_threads(cap, busy=busy)
    finally:
        device.default_cpu_threads = original
    assert got == max(1, min(cap, cores - int(busy + 0.5)))


def test_unknown_load_keeps_the_cap(monkeypatch):
    monkeypatch.setattr(device, "busy_cores", lambda seconds=0.1: None)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert device.free_cpu_threads() == 1
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert device.free_cpu_threads() == device.default_cpu_threads()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat")
def test_busy_cores_sees_a_busy_process():
    before = device.busy_cores(0.3)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        during = device.busy_cores(0.5)
    finally:
        spinner.kill()
        spinner.wait()
    assert before is not None and during is not None
    assert during >= 0.8  # the spinner alone keeps one core busy (others' work only adds)

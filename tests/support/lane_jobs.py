"""Job functions for the long-run lane tests, importable in a spawned child.

Each takes a ``RunContext`` first. Kept free of heavy imports on purpose.
"""

from __future__ import annotations

import signal
import sys
import time


def log_steps(ctx, n: int = 5, sleep: float = 0.0) -> None:
    """Log ``loss`` for n steps; also whether torch got imported in this child."""
    ctx.log(0, torch_loaded=float("torch" in sys.modules))
    for step in range(n):
        ctx.check_cancel()
        ctx.log(step, loss=1.0 / (step + 1), double=2.0 * step)
        if sleep:
            time.sleep(sleep)
    ctx.add_artifact("final", "checkpoint", "/tmp/does-not-matter.bin", sha256="ab" * 32)


def boom(ctx, message: str) -> None:
    """Fail after logging one step."""
    ctx.log(0, loss=1.0)
    raise ValueError(message)


def cooperative(ctx) -> None:
    """Loop until cancelled, checking the flag every few milliseconds."""
    step = 0
    while True:
        ctx.log(step, alive=1.0)
        step += 1
        for _ in range(5):
            ctx.check_cancel()
            time.sleep(0.01)


def stubborn(ctx, ignore_sigterm: bool = False) -> None:
    """Never look at the cancel flag; optionally ignore SIGTERM too."""
    if ignore_sigterm and hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ctx.log(0, alive=1.0)
    while True:
        time.sleep(0.05)


def sleep_for(ctx, seconds: float) -> None:
    """Sleep, logging a step at the start and at the end."""
    ctx.log(0, phase=0.0)
    time.sleep(seconds)
    ctx.log(1, phase=1.0)


def write_metrics(store_path: str, run_id: int, name: str, n: int, ready, go) -> None:
    """Child process body for the concurrent-write test: n single-row transactions."""
    from lm_workbench.store import RunStore

    store = RunStore(store_path)
    ready.set()
    go.wait(30)
    for step in range(n):
        store.log_metrics(run_id, step, {name: float(step)})
    store.close()

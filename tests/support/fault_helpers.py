"""Shared pieces of the fault suite (``tests/faults``): a run store to damage, a tiny fine-tuning command line.

``python -m tests.support.fault_helpers LIMIT ARGS...`` runs ``lm-workbench ARGS...`` with a real full
disk after the first checkpoint: once the training loop has saved its first checkpoint, the process's
file-size limit (``RLIMIT_FSIZE``, SIGXFSZ ignored) drops to LIMIT bytes, so every later write past
that size fails with EFBIG, as a write to a full disk fails with ENOSPC. No root, no special mount.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from lm_workbench.store import RunStore


def store_with_runs(path: Path, n_runs: int = 6, steps: int = 60, names: int = 12) -> list[int]:
    """A store whose runs come first (their rows fill its first pages) and many metric rows after them."""
    with RunStore(path) as store:
        ids = [store.create_run("pretrain", name=f"run {i}", model="bert-tiny", method="mlm",
                                params={"steps": steps, "seed": i}) for i in range(n_runs)]
        for run_id in ids:
            for step in range(steps):
                store.log_metrics(run_id, step, {f"metric_{j}": float(step * j) for j in range(names)})
            store.finish_run(run_id)
    return ids


def cut_short(path: Path, fraction: float = 0.5) -> None:
    """Truncate a file as a copy that stopped halfway does."""
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(int(size * fraction))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def finetune_args(model: Path, data: tuple[Path, Path], out: Path, *, epochs: int = 1, every: int = 2) -> list[str]:
    """``lm-workbench finetune`` of the tiny BERT, full method, one thread, a checkpoint every ``every`` steps
    (48 examples, batch 8: six steps an epoch)."""
    return ["finetune", str(model), "--task", "seq-cls", "--train", str(data[0]), "--validation", str(data[1]),
            "--method", "full", "--epochs", str(epochs), "--batch-size", "8", "--max-length", "24",
            "--train-setting", "threads=1", "--train-setting", f"checkpoint_every={every}", "--out", str(out)]


def _limit_after_first_checkpoint(limit: int) -> None:
    import resource
    import signal

    import lm_workbench.engine.training.loop as loop

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
    real = loop.save_checkpoint

    def save_then_fill_the_disk(*args, **kwargs):
        path = real(*args, **kwargs)
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        return path

    loop.save_checkpoint = save_then_fill_the_disk


def main(argv: list[str]) -> int:
    from lm_workbench.cli.main import main as cli

    _limit_after_first_checkpoint(int(argv[0]))
    return cli(argv[1:])


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main(sys.argv[1:]))

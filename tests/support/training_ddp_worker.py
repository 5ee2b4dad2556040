"""Run by ``torchrun --nproc_per_node 2`` from tests/pretrain/test_training_distributed.py (not a test module).

Each rank trains the same tiny GPT-2 (no dropout) with ``lm_workbench.engine.training.loop.train`` on gloo, then writes
its final parameters (safetensors) and what it saw (JSON) to ``OUT/rank<r>.*``.
argv: OUT CHECKPOINT_DIR
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from safetensors.torch import save_file

from lm_workbench.engine.progress import Progress
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.loop import train
from tests.support.training_helpers import GlobalBatchSampler, make_task, tiny_gpt2

STEPS, PER_RANK_BATCH = 3, 4


def main() -> None:
    out, checkpoint_dir = Path(sys.argv[1]), Path(sys.argv[2])
    rank = int(os.environ["RANK"])
    model = tiny_gpt2(seed=0, dropout=0.0)
    task = make_task(model, n_train=64)
    config = TrainingConfig(steps=STEPS, batch_size=PER_RANK_BATCH, lr=1e-3, warmup_steps=0, eval_every=0,
                            log_every=1, seed=0)
    gen = train(task, config, checkpoint_dir=checkpoint_dir, sampler_factory=GlobalBatchSampler)
    kinds: list[str] = []
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if not isinstance(event, Progress):
            kinds.append(type(event).__name__)
    save_file({k: v.detach().contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"},
              str(out / f"rank{rank}.safetensors"))
    (out / f"rank{rank}.json").write_text(json.dumps({
        "events": kinds, "losses": result.losses, "validation_loss": result.validation_loss,
        "checkpoint": str(result.checkpoint), "world_size": int(os.environ["WORLD_SIZE"]),
    }))


if __name__ == "__main__":
    main()

"""Shared pieces of the pre-training tests: tiny specs, independent loss checks, a crashable app.

``python -m tests.support.pretrain_job_helpers STORE SPEC_JSON`` plays the window: it
opens a ``LongRunLane`` on STORE, submits the pre-training spec and then just
waits, so a test can SIGKILL it together with its job's child process (a
crash of the whole application, not only of the job).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.pretrain_corpus import generate_documents, unigram_entropy_of_ids, write_corpus

FAMILY_OBJECTIVES = {"bert": "mlm", "gpt2": "clm", "bart": "bart", "t5": "t5-span"}
AUTO_CLASS = {"bert": "AutoModelForMaskedLM", "gpt2": "AutoModelForCausalLM", "bart": "AutoModelForSeq2SeqLM",
              "t5": "AutoModelForSeq2SeqLM"}


def tiny_spec_dict(family: str, corpus: Path, out_dir: Path, **training: Any) -> dict[str, Any]:
    """A ``PretrainSpec`` dict small enough to train in seconds on 2 cores."""
    base = {"steps": 300, "batch_size": 16, "lr": 3e-3, "warmup_steps": 20, "eval_every": 0, "eval_batches": 4,
            "log_every": 10, "threads": 1, "device": "cpu"}
    return {"family": family, "objective": FAMILY_OBJECTIVES[family], "corpus": [str(corpus)],
            "out_dir": str(out_dir), "hidden": 64, "layers": 2, "max_positions": 64, "vocab_size": 400,
            "validation_fraction": 0.1, "training": base | training}


def corpus_unigram_entropy(tokenizer: Any, corpus: Path) -> float:
    """Entropy (nats) of the corpus's non-special token frequencies, tokenizing each line ourselves."""
    lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [tokenizer(line, add_special_tokens=False)["input_ids"] for line in lines]
    return unigram_entropy_of_ids(ids, set(tokenizer.all_special_ids))


def fresh_text_loss(family: str, model: Any, tokenizer: Any, max_length: int, n_documents: int = 24,
                    seed: int = 12345) -> float:
    """Mean loss per scored token on NEW text from the same grammar, by transformers' own loss.

    The batches come from the objective plugin (the masking / noising) with a
    fixed generator; the loss is the model's own ``labels=`` loss, weighted by
    the number of scored tokens, so nothing of the pre-training code is used.
    """
    import numpy as np
    import torch

    from lm_workbench.extensions.registry import ObjectiveRegistry

    registry = ObjectiveRegistry.discover()
    objective = registry.objective(FAMILY_OBJECTIVES[family])
    config = objective.default_config()
    texts = [" ".join(doc) for doc in generate_documents(n_documents, seed)]
    rows = [tokenizer(t, truncation=True, max_length=max_length)["input_ids"] for t in texts]
    rng = np.random.default_rng(0)
    total, count = 0.0, 0
    model.eval()
    for start in range(0, len(rows), 8):
        batch = objective.make_batch(rows[start:start + 8], tokenizer, rng, config)
        labels = batch.labels
        with torch.no_grad():
            out = model(**batch.inputs, labels=labels)
        scored = int((labels != -100).sum()) - (int(labels.shape[0]) if family == "gpt2" else 0)
        total += float(out.loss) * scored
        count += scored
    return total / count


def main(argv: list[str]) -> None:
    """Submit one pre-training job on a fresh lane, then idle until killed."""
    from lm_workbench.lanes.long_run_lane import LongRunLane
    from lm_workbench.pretrain.runs import submit_pretrain
    from lm_workbench.pretrain.spec import PretrainSpec

    store, spec_json = argv
    lane = LongRunLane(store)
    run_id = submit_pretrain(lane, PretrainSpec.from_dict(json.loads(spec_json)))
    print(run_id, flush=True)
    while True:
        time.sleep(1)


__all__ = ["AUTO_CLASS", "FAMILY_OBJECTIVES", "corpus_unigram_entropy", "fresh_text_loss", "tiny_spec_dict",
           "write_corpus"]

if __name__ == "__main__":
    main(sys.argv[1:])

"""What a finished pre-training run leaves behind: the model folder and ``summary.json``.

The model is saved with ``save_pretrained`` (safetensors) together with its
tokenizer (ELMo with ``lm_workbench.engine.elmo.checkpoint.save_elmo`` plus its word
vocabulary, ``vocab.txt``), so ``lm_workbench.models.loader.load_model`` and ``transformers``'
``AutoModelFor...from_pretrained`` open it like any downloaded checkpoint;
``load_model`` also opens the run's folder itself as that model. The
objective's extra heads (e.g. SpanBERT's span-boundary head) are not part of
a ``transformers`` architecture, so they go beside it in
``objective_heads.safetensors`` (keys ``<head>.<parameter>``) with their
objective's name and settings in the file's metadata. A save that fails (a full
disk) removes the half-written model folder and raises an ``OSError`` naming it;
the run's checkpoints are left as they are.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import written
from lm_workbench.engine.models.sources import RUN_MODEL_FOLDER
from lm_workbench.files import remove_partial
from lm_workbench.runs.summary import SUMMARY_FILE, finite, write_json_atomic

HEADS_FILE = "objective_heads.safetensors"


def save_heads(heads: dict[str, Any], folder: Path, metadata: dict[str, str]) -> Path | None:
    """Write the objective heads' parameters as one safetensors file; None when there are none."""
    from safetensors.torch import save_file

    tensors = {f"{name}.{key}": value.detach().cpu().contiguous()
               for name, module in heads.items() for key, value in module.state_dict().items()}
    if not tensors:
        return None
    path = folder / HEADS_FILE
    save_file(tensors, str(path), metadata=metadata)
    return path


def _save_elmo(model: Any, tokenizer: Any, model_dir: Path) -> None:
    """ELMo's own folder (config.json + model.safetensors) and its word vocabulary (vocab.txt, in id order)."""
    from lm_workbench.engine.elmo.checkpoint import save_elmo
    from lm_workbench.engine.elmo.words import write_vocabulary

    save_elmo(model, model_dir)
    vocab = tokenizer.get_vocab()
    write_vocabulary(sorted(vocab, key=vocab.__getitem__), model_dir)


def save_outputs(*, spec: Any, out_dir: Path, model: Any, heads: dict, tokenizer: Any, result: Any, data: Any,
                 evaluations: list[tuple[int, float]], run_id: int | None, resumed_from: Path | None,
                 elapsed_s: float, objective_config: Any, head: str) -> dict[str, Any]:
    """Save the model folder and the summary; return the summary."""
    model_dir = out_dir / RUN_MODEL_FOLDER  # what makes out_dir open as this model (lm_workbench.engine.models.sources)
    config_dict = dataclasses.asdict(objective_config) if dataclasses.is_dataclass(objective_config) else {}

    def save_model_folder() -> Path | None:
        model_dir.mkdir(parents=True, exist_ok=True)
        if spec.family == "elmo":
            _save_elmo(model, tokenizer, model_dir)
        else:
            model.save_pretrained(model_dir)
        tokenizer.save_pretrained(model_dir)
        return save_heads(heads, model_dir, {"objective": spec.objective,
                                             "config": json.dumps(config_dict, default=str)})

    try:
        heads_path = written(model_dir, save_model_folder)
    except BaseException:
        remove_partial(model_dir)
        raise
    stats = dict(getattr(data, "stats", {}) or {})
    extra = {k: finite(v) for k, v in (getattr(result, "eval_extra", {}) or {}).items()}
    summary: dict[str, Any] = {
        "run_id": run_id,
        "first_loss": finite(result.first_loss),
        "final_loss": finite(result.final_loss),
        "validation_loss": finite(result.validation_loss),
        "tokens_per_s": finite(result.tokens_per_s),
        "steps": int(result.steps_done),
        "perplexity": finite(getattr(result, "perplexity", None)),
        "unigram_entropy": finite(stats.get("unigram_entropy")),
        "initial_validation_loss": evaluations[0][1] if evaluations and evaluations[0][0] == 0 else None,
        "validations": [[step, loss] for step, loss in evaluations],
        **extra,
        "family": spec.family,
        "objective": spec.objective,
        "head": head,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "heads_parameters": int(sum(p.numel() for m in heads.values() for p in m.parameters())),
        "tokens_seen": int(getattr(result, "tokens_seen", 0) or 0),
        "elapsed_s": round(float(elapsed_s), 3),
        "device": getattr(result, "device", ""),
        "precision": getattr(result, "precision", ""),
        "speed": dict(getattr(result, "speed", {}) or {}),  # which speed levers ran (lm_workbench.engine.training.speed)
        "train_tokens": stats.get("train_tokens"),
        "validation_tokens": stats.get("validation_tokens"),
        "vocab_size": len(tokenizer),
        "out_dir": str(out_dir),
        "model_dir": str(model_dir),
        "heads_file": str(heads_path) if heads_path else None,
        "checkpoint": str(result.checkpoint) if result.checkpoint else None,
        "resumed_from": str(resumed_from) if resumed_from else None,
        "cancelled": bool(result.cancelled),
        "spec": spec.to_dict(),
    }
    summary["summary_path"] = str(out_dir / SUMMARY_FILE)
    write_json_atomic(out_dir / SUMMARY_FILE, summary)
    return summary

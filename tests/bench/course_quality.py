"""Each course model's own signal, measured on its held-out examples (a helper of ``bench_course_models.py``).

- BERT: masked-token accuracy (15% of the non-special tokens replaced by [MASK], seeded) against the unigram
  baseline (always guessing the training set's most frequent token) on the same positions.
- BART: the decoder reads its encoder. Each held-out example is noised as in training (the ``bart``
  objective with the course settings, ``COURSE_OBJECTIVE_CONFIG``, seeded; 8 draws of each); the
  reconstruction loss of the original with the encoder given that
  noised input is compared with the loss of the same labels with another example's noised input
  (``drop`` = 1 - true / other; the issue asks for at least 0.2).
- T5: the span targets of each held-out example scored with its own corrupted input, against another
  example's corrupted input (same ``drop``).
- GPT-2: its number of layers (at least 4) and held-out next-token loss.
- ELMo: linear probes per layer (0 = character CNN, 1, 2 = biLSTM layers) on two tasks whose best layers
  differ: part of speech (the probing module's bundled treebank) and word sense (the scalar-mix lecture's
  sentences), both computed by the lecture step's own metric code.

Every number is a plain PyTorch / transformers computation here, not the training code's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

IGNORE = -100


def _data_folder(model_dir: Path, family: str) -> Path:
    """The packed data of the run (``data/<family>-*`` beside ``model/``) made with the model's own tokenizer
    (its ``vocab_size`` in ``stats.json`` equal; the newest when several are)."""
    folders = [f for f in (model_dir.parent / "data").glob(f"{family}-*") if (f / "stats.json").is_file()]
    if not folders:
        raise RuntimeError(f"no packed data beside {model_dir}")
    from transformers import AutoTokenizer

    size = len(AutoTokenizer.from_pretrained(model_dir))
    matching = [f for f in folders if json.loads((f / "stats.json").read_text())["vocab_size"] == size] or folders
    return max(matching, key=lambda f: f.stat().st_mtime)


def _validation(model_dir: Path, family: str) -> list[list[int]]:
    """The held-out examples the run packed."""
    from lm_workbench.engine.pretrain.example_set import ExampleSet

    return [list(map(int, ex)) for ex in ExampleSet(_data_folder(model_dir, family), "validation")]


def _train_counts(model_dir: Path, family: str, size: int) -> np.ndarray:
    from lm_workbench.engine.pretrain.example_set import ExampleSet

    folder = _data_folder(model_dir, family)
    counts = np.zeros(size, dtype=np.int64)
    for ex in ExampleSet(folder, "train"):
        np.add.at(counts, np.asarray(ex, dtype=np.int64), 1)
    return counts


def _pad(rows: list[list[int]], value: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [value] * (width - len(r)) for r in rows], dtype=torch.long)


def bert_quality(model_dir: Path, limit: int = 400, seed: int = 0, draws: int = 20) -> dict[str, Any]:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    examples = (_validation(model_dir, "bert")[:limit]) * draws  # each held-out example masked ``draws`` times
    special = set(tok.all_special_ids)
    counts = _train_counts(model_dir, "bert", len(tok))
    counts[list(special)] = 0
    unigram_guess = int(counts.argmax())
    rng = np.random.default_rng(seed)
    right = guess_right = total = 0
    for start in range(0, len(examples), 32):
        rows = examples[start:start + 32]
        ids = _pad(rows, tok.pad_token_id)
        attention = (torch.arange(ids.shape[1])[None, :] < torch.tensor([len(r) for r in rows])[:, None]).long()
        labels = torch.full_like(ids, IGNORE)
        inputs = ids.clone()
        for i, row in enumerate(rows):
            slots = [j for j, t in enumerate(row) if t not in special]
            k = max(1, round(0.15 * len(slots)))
            for j in rng.choice(slots, size=min(k, len(slots)), replace=False):
                labels[i, j] = ids[i, j]
                inputs[i, j] = tok.mask_token_id
        with torch.inference_mode():
            logits = model(input_ids=inputs, attention_mask=attention).logits
        scored = labels != IGNORE
        right += int((logits.argmax(-1)[scored] == labels[scored]).sum())
        guess_right += int((labels[scored] == unigram_guess).sum())
        total += int(scored.sum())
    return {"masked_accuracy": right / total, "unigram_accuracy": guess_right / total,
            "unigram_token": tok.convert_ids_to_tokens(unigram_guess), "masked_tokens": total,
            "holds": right / total > guess_right / total}


def _seq2seq_losses(model: Any, inputs: list[list[int]], labels: list[list[int]], pad: int) -> np.ndarray:
    """Per-example mean cross-entropy of ``labels`` given the encoder ``inputs`` (teacher-forced)."""
    enc = _pad(inputs, pad)
    attention = (enc != pad).long()
    lab = _pad(labels, IGNORE)
    decoder_inputs = model.prepare_decoder_input_ids_from_labels(labels=lab)
    with torch.inference_mode():
        logits = model(input_ids=enc, attention_mask=attention, decoder_input_ids=decoder_inputs).logits
    nll = F.cross_entropy(logits.float().transpose(1, 2), lab, ignore_index=IGNORE, reduction="none")
    scored = (lab != IGNORE).float()
    return (nll.sum(1) / scored.sum(1).clamp(min=1)).numpy()


def seq2seq_quality(model_dir: Path, family: str, limit: int = 256, seed: int = 0, draws: int = 8) -> dict[str, Any]:
    """The drop in reconstruction loss from another example's input to the example's own (see the module)."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from lm_workbench.engine.objectives.vocab import vocab_info
    from lm_workbench.plugins.objectives.bart import BART
    from lm_workbench.plugins.objectives.t5_span import T5SpanCorruption

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir).eval()
    from lm_workbench.engine.objectives.config_fields import config_from_strings
    from lm_workbench.pretrain.course_models import COURSE_OBJECTIVE_CONFIG

    objective = BART() if family == "bart" else T5SpanCorruption()
    settings = [f"{k}={v}" for k, v in COURSE_OBJECTIVE_CONFIG.get(family, {}).items()]
    config = config_from_strings(objective.default_config(), settings, objective.name)
    info = vocab_info(tok)
    rng = np.random.default_rng(seed)
    held_out = [e for e in _validation(model_dir, family) if len(e) >= 8][:limit]
    examples = held_out * draws  # each held-out example noised ``draws`` times
    previews = [objective.corrupt(np.asarray(e, dtype=np.int64), info, rng, config) for e in examples]
    own_in = [p.input_ids for p in previews]
    labels = [p.labels for p in previews]
    other_in = own_in[1:] + own_in[:1]  # each example's labels with the next one's input (another example)
    true_loss, other_loss = [], []
    for s in range(0, len(examples), 32):
        true_loss.append(_seq2seq_losses(model, own_in[s:s + 32], labels[s:s + 32], tok.pad_token_id))
        other_loss.append(_seq2seq_losses(model, other_in[s:s + 32], labels[s:s + 32], tok.pad_token_id))
    t, o = float(np.concatenate(true_loss).mean()), float(np.concatenate(other_loss).mean())
    return {"loss_true_input": t, "loss_other_input": o, "drop": 1 - t / o, "examples": len(held_out),
            "holds": 1 - t / o >= 0.2}


def gpt2_quality(model_dir: Path) -> dict[str, Any]:
    config = json.loads((model_dir / "config.json").read_text())
    return {"layers": int(config["n_layer"]), "holds": int(config["n_layer"]) >= 4}


def elmo_quality(model_dir: Path) -> dict[str, Any]:
    """Probe accuracy per layer (0 the character CNN, 1 and 2 the biLSTM layers) for part of speech (the demo
    treebank, token probes) and word sense (the scalar-mix lecture's sentences), computed as the Probing view
    computes them (``lm_workbench.lectures.metrics``, seed 0). The layers differ in what they probe when the two
    tasks' accuracy profiles differ: the best layers differ, or the spread over layers of one task exceeds 0.05."""
    from lm_workbench.lectures.library import data_path
    from lm_workbench.lectures.metrics import StepRun, metric_value
    from lm_workbench.lectures.verify import ModelCache

    loader = ModelCache()
    model = str(model_dir.parent)
    tasks = {"pos": {"task": "demo", "kind": "token", "probe": True, "run": True},
             "sense": {"task": str(data_path("word_sense.tsv")), "kind": "sentence", "probe": True, "run": True}}
    out: dict[str, Any] = {}
    for name, settings in tasks.items():
        run = StepRun("probing", settings, {}, model, loader)
        out[name] = [round(float(metric_value(run, "accuracy", {"layer": layer})), 4) for layer in (0, 1, 2)]
    best = {name: int(np.argmax(values)) for name, values in out.items()}
    spread = {name: max(values) - min(values) for name, values in out.items()}
    out["best_layer"] = best
    out["holds"] = best["pos"] != best["sense"] or max(spread.values()) > 0.05
    return out

"""A fine-tuning output folder read back: the manifest, the model rebuilt on its base, predictions.

``finetune.json`` (written by ``write_manifest``) names the base model folder, the task, the method
and its settings, the labels and the maximum length; ``adapter/`` holds what the method saved. A
reload builds a fresh task model on the base (``build_task_model``) and hands it to the method's
``load``, so its predictions equal the trained model's (the methods guarantee bit-identical logits).
``predict`` answers one input the way the task asks: a label with probabilities, a tag per word,
an answer span in a context ("" when a SQuAD 2.0 model, manifest ``no_answer``, finds none), a
generated text, or (a sentence encoder, given two texts) their cosine similarity. An input longer than the
run's maximum length is cut to it, as training cut its rows, and the answer's ``notes`` say so (a tagged
word past the cut has no tag: ``tag`` and ``confidence`` are null).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError

FORMAT = "lm-workbench-finetune/1"
MANIFEST_FILE = "finetune.json"
ADAPTER_FOLDER = "adapter"


def write_manifest(out_dir: Path, *, base_model: str, task: str, method: str, method_config: dict[str, Any],
                   labels: Sequence[str], text_columns: Sequence[str] | None, max_length: int,
                   run_id: int | None, **extra: Any) -> Path:
    path = Path(out_dir) / MANIFEST_FILE
    manifest = {"format": FORMAT, "base_model": str(base_model), "task": task, "method": method,
                "method_config": dict(method_config), "labels": list(labels),
                "text_columns": list(text_columns) if text_columns else None, "max_length": int(max_length),
                "run_id": run_id, **extra}
    path.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """``finetune.json`` of a fine-tuning output folder; ``WorkbenchError`` when it is not one."""
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        raise WorkbenchError(f"{folder} is not a fine-tuning output folder (no {MANIFEST_FILE})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {path}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise WorkbenchError(f"{path} is not in the {FORMAT} format")
    return manifest


@dataclass
class FineTunedModel:
    model: Any  # eval mode
    tokenizer: Any
    manifest: dict[str, Any]

    @property
    def task(self) -> str:
        return self.manifest["task"]

    @property
    def labels(self) -> list[str]:
        return list(self.manifest.get("labels") or [])


def load_finetuned(folder: str | Path, method: Any) -> FineTunedModel:
    """The model in ``folder`` on a fresh copy of its base; ``method`` is the plugin its manifest names."""
    from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer

    folder = Path(folder)
    manifest = read_manifest(folder)
    adapter = folder / ADAPTER_FOLDER
    if not adapter.is_dir():
        raise WorkbenchError(f"{folder} has no {ADAPTER_FOLDER}/ folder: the run did not finish")
    base = Path(manifest["base_model"])
    if not (base / "config.json").is_file():
        raise WorkbenchError(f"the base model of {folder} is gone: {base} has no config.json")
    task_model = build_task_model(base, manifest["task"], manifest.get("labels") or [])
    model = method.load(task_model, adapter).eval()
    tokenizer_home = adapter if (adapter / "tokenizer_config.json").is_file() else base
    return FineTunedModel(model, load_task_tokenizer(tokenizer_home), manifest)


def similarity(tuned: FineTunedModel, text: str, text2: str | None) -> dict[str, Any]:
    """A sentence encoder's answer: the cosine similarity of the two texts' pooled vectors (the run's pooling)."""
    from lm_workbench.engine.sentence.training import pair_cosines

    if not text2 or not text2.strip():
        raise WorkbenchError("a sentence-embedding model compares two texts: give the second with --text2")
    pooling = str(tuned.manifest.get("pooling") or "mean")
    cosine = pair_cosines(tuned.model, tuned.tokenizer, [(text, text2)], pooling, int(tuned.manifest["max_length"]))[0]
    return {"task": tuned.task, "cosine": cosine, "pooling": pooling}


def predict(tuned: FineTunedModel, text: str, text2: str | None = None,
            context: str | None = None) -> dict[str, Any]:
    """One input's prediction (``text2``: a pair's second sentence; ``context``: the QA passage)."""
    from lm_workbench.engine.finetune import inference

    if not text.strip():
        raise WorkbenchError("the text is empty")
    task, max_length = tuned.task, int(tuned.manifest["max_length"])
    model, tokenizer = tuned.model, tuned.tokenizer
    if task == "seq-cls":
        found = inference.classify(model, tokenizer, [(text, text2)], tuned.labels, max_length)[0]
        return _with_notes({"task": task, **found}, _cut_input(tokenizer, max_length, text, text2))
    if task == "token-cls":
        words = text.split()
        found = inference.tag(model, tokenizer, [words], tuned.labels, max_length)[0]
        read = inference.words_read(tokenizer, words, max_length)
        tokens = [{"word": w, "tag": t, "confidence": c} if i < read else {"word": w, "tag": None, "confidence": None}
                  for i, (w, t, c) in enumerate(zip(words, found["tags"], found["confidences"]))]
        note = (f"the text is longer than the maximum length of {max_length} tokens: the model read its first "
                f"{read} of {len(words)} words; the rest have no tag (null)") if read < len(words) else None
        return _with_notes({"task": task, "tokens": tokens}, note)
    if task == "sentence-embedding":
        return similarity(tuned, text, text2)
    if task == "qa":
        if not context or not context.strip():
            raise WorkbenchError("a question-answering model needs a context (--context) to find the answer in")
        threshold = inference.NULL_THRESHOLD if tuned.manifest.get("no_answer") else None  # SQuAD 2.0
        return {"task": task, **inference.answer(model, tokenizer, [(text, context)], max_length,
                                                 null_threshold=threshold)[0]}
    if task == "instruct":
        from lm_workbench.engine.instruct.answers import answer_prompts
        from lm_workbench.engine.instruct.template import ChatTemplate

        saved = tuned.manifest.get("chat_template") or {}
        template = ChatTemplate(saved.get("text", ""), saved.get("source", "plain"))
        answer = answer_prompts(model, tokenizer, template, [text], max_length=max_length,
                                max_new_tokens=min(64, max_length))[0]
        return {"task": task, "answer": answer, "text": answer, "chat_template": template.source}
    return _with_notes({"task": task, **inference.generate(model, tokenizer, [text], max_length)[0]},
                       _cut_input(tokenizer, max_length, text))


def _cut_input(tokenizer: Any, max_length: int, text: str, text2: str | None = None) -> str | None:
    """The note for an input longer than ``max_length`` tokens (cut to it, as in training), else None."""
    total = len(tokenizer(text, text2)["input_ids"])
    if total <= max_length:
        return None
    return (f"the input is {total} tokens long (special tokens included) and the model reads {max_length} (the "
            f"run's maximum length): it read the first {max_length}, the rest was cut off")


def _with_notes(answer: dict[str, Any], note: str | None) -> dict[str, Any]:
    return {**answer, "notes": [note]} if note else answer

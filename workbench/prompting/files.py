"""Prompt-set files: templates, verbalizers and (optionally) labelled examples in one JSON file.

The format is documented in docs/prompt-sets.md. ``load_prompt_set`` checks everything a teacher's file can
get wrong and names the entry; ``save_prompt_set`` writes what ``load_prompt_set`` reads back unchanged;
``from_plugin`` turns a ``PromptSet`` plugin (built-in or a third party's) into the same form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.prompt_set import NamedTemplate, NamedVerbalizer
from lm_workbench.engine.prompting.names import MODES
from lm_workbench.engine.prompting.template import problems
from lm_workbench.engine.prompting.verbalizer import Verbalizer
from lm_workbench.engine.text_input import read_text_file

FORMAT = "lm-workbench-prompt-set"
VERSION = 1
SUFFIX = ".json"


@dataclass
class PromptSetFile:
    """A prompt set as a file holds it. ``examples``: ``{"text", "label"[, "text_pair"]}`` dicts."""

    name: str
    title: str = ""
    description: str = ""
    templates: list[NamedTemplate] = field(default_factory=list)
    verbalizers: list[NamedVerbalizer] = field(default_factory=list)
    examples: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "name": self.name, "title": self.title,
            "description": self.description,
            "templates": [{"name": t.name, "mode": t.mode, "text": t.text} for t in self.templates],
            "verbalizers": [{"name": v.name, "labels": Verbalizer.parse(v.spec).to_mapping()}
                            for v in self.verbalizers],
        }
        if self.examples:
            data["examples"] = self.examples
        return data


def from_plugin(prompt_set: Any) -> PromptSetFile:
    """A ``PromptSet`` plugin (class or instance) as a file's content, with its example data when it has some."""
    instance = prompt_set() if isinstance(prompt_set, type) else prompt_set
    examples: list[dict[str, str]] = []
    path = instance.example_data()
    if path is not None:
        from lm_workbench.engine.data.tasks import read_classification

        data = read_classification(path)
        examples = [{"text": e.text, "label": e.label, **({"text_pair": e.text_pair} if e.text_pair else {})}
                    for e in data.examples]
    return PromptSetFile(instance.name, instance.title, instance.description, list(instance.templates),
                         list(instance.verbalizers), examples)


def save_prompt_set(prompt_set: PromptSetFile, path: str | Path) -> Path:
    """Write ``prompt_set`` as JSON (UTF-8, indented) to ``path``."""
    path = Path(path)
    try:
        path.write_text(json.dumps(prompt_set.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise WorkbenchError(f"cannot write {path}: {exc.strerror}") from None
    return path


def _need(where: str, entry: Any, key: str, kind: type = str) -> Any:
    if not isinstance(entry, dict) or key not in entry:
        raise WorkbenchError(f"{where}: no {key!r}")
    if not isinstance(entry[key], kind):
        raise WorkbenchError(f"{where}: {key!r} must be {'text' if kind is str else kind.__name__}")
    return entry[key]


def load_prompt_set(path: str | Path) -> PromptSetFile:
    """Read and check a prompt-set file; every problem is a one-line ``WorkbenchError`` naming its place."""
    path = Path(path)
    if not path.is_file():
        raise WorkbenchError(f"{path}: no such file")
    try:
        data = json.loads(read_text_file(path))
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WorkbenchError(f"{path}: not a prompt-set file (its \"format\" must be {FORMAT!r})")
    version = data.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise WorkbenchError(f"{path}: prompt-set file version {version!r}; this LM Workbench reads version "
                             f"{VERSION}")
    name = _need(str(path), data, "name")
    templates = []
    for i, entry in enumerate(_need(str(path), data, "templates", list), start=1):
        where = f"{path}: template {i}"
        text, mode = _need(where, entry, "text"), entry.get("mode", "cloze") if isinstance(entry, dict) else None
        if mode not in MODES:
            raise WorkbenchError(f"{where}: mode must be cloze or prefix, not {mode!r}")
        found = problems(text, mode)
        if found:
            raise WorkbenchError(f"{where} ({text!r}): {found[0].message}")
        templates.append(NamedTemplate(str(entry.get("name") or f"template {i}"), text, mode))
    verbalizers = []
    for i, entry in enumerate(_need(str(path), data, "verbalizers", list), start=1):
        where = f"{path}: verbalizer {i}"
        labels = _need(where, entry, "labels", dict)
        if not all(isinstance(words, list) and all(isinstance(w, str) for w in words) for words in labels.values()):
            raise WorkbenchError(f"{where}: each label maps to a list of answer words")
        try:
            spec = Verbalizer.from_mapping(labels).to_text()
        except WorkbenchError as exc:
            raise WorkbenchError(f"{where}: {exc}") from None
        verbalizers.append(NamedVerbalizer(str(entry.get("name") or f"verbalizer {i}"), spec))
    if not templates or not verbalizers:
        raise WorkbenchError(f"{path}: a prompt set needs at least one template and one verbalizer")
    examples = []
    for i, entry in enumerate(data.get("examples") or [], start=1):
        where = f"{path}: example {i}"
        example = {"text": _need(where, entry, "text"), "label": _need(where, entry, "label")}
        if isinstance(entry, dict) and entry.get("text_pair") is not None:
            example["text_pair"] = _need(where, entry, "text_pair")
        examples.append(example)
    return PromptSetFile(name, str(data.get("title", "")), str(data.get("description", "")), templates,
                         verbalizers, examples)


def write_examples_tsv(prompt_set: PromptSetFile, path: str | Path) -> Path:
    """A file's examples as a TSV that ``read_classification`` reads (for evaluating them)."""
    if not prompt_set.examples:
        raise WorkbenchError(f"the prompt set {prompt_set.name!r} has no examples")
    pairs = any("text_pair" in e for e in prompt_set.examples)
    header = ["sentence1", "sentence2", "label"] if pairs else ["sentence", "label"]
    lines = ["\t".join(header)]
    for e in prompt_set.examples:
        cells = [e["text"], e.get("text_pair", ""), e["label"]] if pairs else [e["text"], e["label"]]
        lines.append("\t".join(" ".join(c.split()) for c in cells))
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path

"""One loader (issue 43.4): no module outside the loader turns a model folder into a ``transformers`` model with
``AutoModel*.from_pretrained``. A user's spec resolves in ``lm_workbench.models.loader`` and its folder loads in
``lm_workbench.engine.models.loading`` (the loader's engine half); every view, command and job loads through
``lm_workbench.models.loader.load_model``.

The rule, computed with ``ast``: a ``.from_pretrained(...)`` call whose receiver names an ``AutoModel*`` class,
the loader's head-class table (``head_class(...)``), or a local name assigned from either (or from
``getattr(transformers, ...)``). Fine-tuning builds a *training* model with a task head on a base folder that the
loader resolved (``lm_workbench.models.loader.resolve_folder``); those two modules are listed with that reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOADER = {"engine/models/loading.py"}
TRAINING_HEADS = {  # a task head on the base folder fine-tuning resolved through the loader (workbench/finetune/train.py)
    "engine/finetune/task_model.py",
    "engine/finetune/forgetting.py",
}
_MARKS = ("AutoModel", "head_class", "getattr(transformers")


def _names_auto(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return any(mark in text for mark in _MARKS)


def auto_model_loads(source: str) -> list[int]:
    """Line numbers of ``AutoModel*``-style ``from_pretrained`` calls in ``source``."""
    tree = ast.parse(source)
    bound = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _names_auto(node.value)
             for target in node.targets if isinstance(target, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_pretrained":
            receiver = node.func.value
            if _names_auto(receiver) or (isinstance(receiver, ast.Name) and receiver.id in bound):
                lines.append(node.lineno)
    return lines


def test_the_rule_finds_direct_aliased_and_table_loads_but_not_tokenizers():
    source = (
        "import transformers\n"
        "from transformers import AutoModel, AutoTokenizer\n"
        "m = AutoModel.from_pretrained(folder)\n"
        "h = transformers.AutoModelForCausalLM.from_pretrained(folder)\n"
        "auto = getattr(transformers, name)\n"
        "t = auto.from_pretrained(folder)\n"
        "k = _head_class(family).from_pretrained(folder)\n"
        "tok = AutoTokenizer.from_pretrained(folder)\n"
        "cfg = transformers.AutoConfig.from_pretrained(folder)\n"
    )
    assert auto_model_loads(source) == [3, 4, 6, 7]


def test_no_module_outside_the_loader_loads_a_model_with_auto_model():
    found = {}
    for folder in ("engine", "workbench", "ui", "plugins"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if "__pycache__" in path.parts or name in LOADER | TRAINING_HEADS:
                continue
            lines = auto_model_loads(path.read_text(encoding="utf-8"))
            if lines:
                found[name] = lines
    assert found == {}, "load a user's model through lm_workbench.models.loader.load_model"


def test_the_loader_and_the_listed_training_modules_still_do_what_they_are_listed_for():
    for name in LOADER | TRAINING_HEADS:
        assert auto_model_loads((ROOT / name).read_text(encoding="utf-8")), f"{name} no longer loads: unlist it"

"""No module outside ``lm_workbench.engine.anatomy`` names a model family's projection or norm attribute.

Issue 43.2's measure, by this rule: 11 modules named them before the anatomy package (the heads' anatomy, patching's
sites and encoder-decoder sites, the logit lens, the attention walkthrough, the task model, the bottleneck and
parallel-adapter sites, fine-tuning's LoRA names, the diagram's fused QKV, the peft methods' FFN table); 0 after.

Where each family (BERT-style encoders, DistilBERT, GPT-2, Llama-style decoders, BART, T5) keeps its attention
and MLP projections and its norms is written once, in ``engine/anatomy/``; every other module asks it by role
(``attention_output``, ``mlp_output``, ``final_norm``, hook-point names). The rule: a module *names* such an
attribute when its code (not its docstrings or comments) reads ``x.<token>``, or holds a string that is an
identifier or a dotted path (no spaces: prose in help texts and messages is not a lookup) with ``<token>`` as one
of its parts, or a dotted tail such as ``attention.output.dense``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("engine", "workbench", "ui", "plugins")
ALLOWED = Path("engine") / "anatomy"

# Per-family attribute names of projections, sublayers and norms (GPT-2, Llama-style, BERT-style, DistilBERT,
# BART, T5). Generic words ("dense", "query", "norm", "attn", "mlp") are left out: they name roles elsewhere too.
PROJECTIONS = ("c_attn", "c_proj", "c_fc", "q_proj", "k_proj", "v_proj", "o_proj", "out_proj", "down_proj",
               "up_proj", "gate_proj", "q_lin", "k_lin", "v_lin", "out_lin", "lin1", "lin2", "fc1", "fc2", "wi",
               "wo", "wi_0", "wi_1", "DenseReluDense", "SelfAttention", "EncDecAttention", "encoder_attn",
               "self_attn")
NORMS = ("ln_f", "ln_1", "ln_2", "LayerNorm", "final_layer_norm", "self_attn_layer_norm",
         "encoder_attn_layer_norm", "input_layernorm", "post_attention_layernorm", "final_layernorm",
         "layernorm_embedding", "sa_layer_norm", "output_layer_norm", "vocab_layer_norm")
TOKENS = frozenset(PROJECTIONS + NORMS)
DOTTED = ("attention.output.dense", "attention.self", "intermediate.dense", "output.dense")
_MENTIONS = re.compile(r"\b(?:" + "|".join(re.escape(t) for t in sorted(TOKENS | set(DOTTED), key=len, reverse=True)) + r")\b")
_PATH = re.compile(r"^\.?[A-Za-z_][\w-]*(\.[\w-]+)*\.?$")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _is_torch_class(node: ast.Attribute) -> bool:
    """``nn.LayerNorm`` / ``torch.nn.LayerNorm``: torch's class, not a family's attribute."""
    value = node.value
    return (isinstance(value, ast.Name) and value.id == "nn") or (
        isinstance(value, ast.Attribute) and value.attr == "nn" and isinstance(value.value, ast.Name)
        and value.value.id == "torch")


def names_in_string(text: str) -> list[str]:
    """The family attribute names a string constant names (empty for prose or for other names)."""
    text = text.strip()
    if not text or not _PATH.match(text):
        return []
    found = [part for part in text.strip(".").split(".") if part in TOKENS]
    padded = f".{text.strip('.')}."
    found += [d for d in DOTTED if f".{d}." in padded]
    return found


def names_in_source(source: str) -> list[str]:
    """Every family attribute name the code of ``source`` names (docstrings and comments excluded)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in TOKENS and not _is_torch_class(node):
            found.append(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found += names_in_string(node.value)
    return found


def offenders() -> dict[str, list[str]]:
    """Module path -> the family attribute names it names, for every scanned module outside the anatomy."""
    out = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ALLOWED.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if not _MENTIONS.search(text):  # no token anywhere in the text: nothing to parse
                continue
            found = names_in_source(text)
            if found:
                out[str(rel)] = sorted(set(found))
    return out


def test_no_module_outside_the_anatomy_names_a_family_internal():
    bad = offenders()
    assert bad == {}, "\n".join(f"{path}: {', '.join(names)}" for path, names in bad.items())


def test_the_rule_catches_each_way_of_naming():
    code = '''
"""A docstring may say c_proj and attention.output.dense."""
x = block.attn.c_proj  # an attribute read
norm = torch.nn.LayerNorm(8)  # torch's class: not a family's attribute
y = getattr(block, "ln_f")
z = ("mlp.down_proj", "layer.1.EncDecAttention.o")
w = submodule(base, "encoder.layer.0.attention.output.dense")
v = f"{name}.fc1"
help = "query/key/value also find GPT-2's fused c_attn"  # prose: not a lookup
'''
    assert sorted(names_in_source(code)) == sorted(["c_proj", "ln_f", "down_proj", "EncDecAttention",
                                                    "attention.output.dense", "output.dense", "fc1"])


def test_the_anatomy_package_names_them():
    """The rule is not vacuous: the one allowed home does name the families' internals."""
    names = set()
    for path in (ROOT / ALLOWED).rglob("*.py"):
        names.update(names_in_source(path.read_text(encoding="utf-8")))
    assert {"c_proj", "out_proj", "o_proj", "fc2", "wo", "ln_f", "final_layer_norm", "output.dense"} <= names

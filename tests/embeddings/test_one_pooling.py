"""One sentence pooling: each name of the one vocabulary (aliases included) against its formula written here,
with padding on either side; ``model`` resolved from the folder's declaration; and the architecture rule that no
module but ``engine/sentence/pooling.py`` implements a pooling mode (word pooling over subwords is another
vocabulary, in the two modules named below)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.model_pooling import resolve_pooling
from lm_workbench.engine.sentence.names import POOLING_ALIASES, POOLINGS, ST_POOLING_FLAGS
from lm_workbench.engine.sentence.pooling import pool, pool_array

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(7)
STATES = RNG.normal(size=(3, 5, 4))  # [B, T, H]
MASKS = {"right padding": np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]]),
         "left padding": np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 1]])}


def expected(states: np.ndarray, mask: np.ndarray, name: str) -> np.ndarray:
    """The formula, one sequence at a time over its real tokens."""
    out = []
    for h, m in zip(states, mask):
        real = [h[t] for t in range(len(m)) if m[t]]
        if name == "mean":
            out.append(sum(real) / len(real))
        elif name in ("cls", "first"):
            out.append(h[0])
        elif name == "max":
            out.append(np.array([max(v[i] for v in real) for i in range(h.shape[1])]))
        elif name == "mean_sqrt_len":
            out.append(sum(real) / np.sqrt(len(real)))
        elif name == "last":
            out.append(real[-1])
    return np.stack(out)


ROWS = [(name, padding) for name in (*[p for p in POOLINGS if p != "model"], *POOLING_ALIASES)
        for padding in MASKS]


@pytest.mark.parametrize("name,padding", ROWS)
def test_each_pooling_name_is_its_formula(name, padding):
    mask = MASKS[padding]
    want = expected(STATES, mask, name)
    got = pool(torch.from_numpy(STATES), torch.from_numpy(mask), name).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pool_array(STATES, mask, name), want.astype(np.float32), rtol=1e-6, atol=1e-6)


def test_model_resolves_to_what_the_folder_declares_and_unknown_names_are_refused(tmp_path):
    for mode, flag in ST_POOLING_FLAGS.items():
        folder = tmp_path / mode
        (folder / "1_Pooling").mkdir(parents=True)
        (folder / "modules.json").write_text(json.dumps([
            {"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
        (folder / "1_Pooling" / "config.json").write_text(json.dumps({flag: True}))
        assert resolve_pooling("model", folder) == (mode, False)
    assert resolve_pooling("first", None) == ("cls", False)
    with pytest.raises(WorkbenchError, match="declares no pooling"):
        resolve_pooling("model", tmp_path)
    with pytest.raises(WorkbenchError, match="unknown pooling"):
        pool(torch.from_numpy(STATES), None, "model")
    with pytest.raises(WorkbenchError, match="unknown pooling 'median'"):
        resolve_pooling("median", None)


WORD_POOLING = {"engine/embeddings/extract.py", "engine/embeddings/representation.py"}  # over one word's subwords
THE_ONE = "engine/sentence/pooling.py"
MODE_WORDS = {*POOLINGS, *POOLING_ALIASES} - {"model", "mean"}  # "mean" alone also names other averages


def pooling_implementations(root: Path = ROOT) -> list[str]:
    """Modules that compute a pooling mode: an ``if x == "cls":`` (or first, max, last, mean_sqrt_len; x named
    ``mode``, ``pooling`` or ``how``) whose branch returns (a vector); a check that refuses a mode does not count."""
    found = []
    for folder in ("engine", "workbench", "ui", "plugins"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for branch in ast.walk(tree):
                node = branch.test if isinstance(branch, ast.If) else None
                if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
                    continue
                if not any(isinstance(s, ast.Return) for s in branch.body):
                    continue
                left, right = node.left, node.comparators[0]
                name = left.id if isinstance(left, ast.Name) else getattr(left, "attr", "")
                if (name in ("mode", "pooling", "how") and isinstance(right, ast.Constant)
                        and right.value in MODE_WORDS):
                    found.append(path.relative_to(root).as_posix())
                    break
    return found


def test_one_pooling_implementation():
    found = [p for p in pooling_implementations() if p not in WORD_POOLING]
    assert found == [THE_ONE]

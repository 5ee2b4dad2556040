"""The torch-free ``names`` modules: light to import, and the tables they name agree with the engine's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(f"lm_workbench.engine.{p.parent.name}.names" for p in (ROOT / "engine").glob("*/names.py"))
HEAVY = ("torch", "transformers", "peft", "tokenizers", "numpy", "PySide6", "pyqtgraph")


def test_every_names_module_imports_without_torch_numpy_or_qt():
    assert {"lm_workbench.engine.finetune.names", "lm_workbench.engine.embeddings.names", "lm_workbench.engine.pretrain.names"} <= set(NAMES)
    code = (f"import sys, importlib; [importlib.import_module(m) for m in {NAMES!r}];"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_names_are_the_ones_the_engine_acts_on():
    from lm_workbench.engine.elmo.presets import ELMO_PRESETS
    from lm_workbench.engine.finetune import method_api
    from lm_workbench.engine.finetune.names import LORA_ROLE_ALIASES, LORA_SITES_OF_TARGET, SITES
    from lm_workbench.engine.pretrain import architectures, tokenizer_training
    from lm_workbench.engine.pretrain.names import ELMO_PRESET_NAMES, FAMILIES, TRANSFORMER_PRESETS
    from lm_workbench.pretrain import spec

    assert tuple(ELMO_PRESETS) == ELMO_PRESET_NAMES
    assert tuple(architectures.PRESETS) == TRANSFORMER_PRESETS
    assert tokenizer_training.FAMILIES is FAMILIES is spec.FAMILIES
    assert method_api.SITES is SITES
    # every LoRA role and alias draws the role's site; every site a target names is one the diagram has
    for role, aliases in LORA_ROLE_ALIASES.items():
        assert all(role in LORA_SITES_OF_TARGET[name] for name in (role, *aliases))
    assert {site for sites in LORA_SITES_OF_TARGET.values() for site in sites} <= set(SITES)

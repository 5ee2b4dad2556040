"""An SAE a lecture step names by how it is trained, made on first use and kept.

A step's ``sae`` setting is either a folder (an SAE already there) or a training recipe, a JSON object with the
keys of ``sae train`` (``site``, ``kind``, ``expansion``, ``sparsity``, ``steps``, ``batch``, ``lr``,
``buffer_tokens``, ``context``, ``seed``) and ``corpus`` (a file, or ``"training-corpus"``: the corpus the course
model was pre-trained on, named on its card). The SAE is trained once per (model fingerprint, recipe) into
``<data folder>/saes/<fingerprint>-<recipe hash>/`` (seeds fixed, so every machine gets the same SAE from the same
model) and read from there afterwards. The window (the Features view's lecture step, with progress and Cancel) and
``presets verify`` train it the same way; neither records it in the run store (``summary.json`` in the folder keeps
the curves).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress

RECIPE_KEYS = ("site", "kind", "expansion", "sparsity", "steps", "batch", "lr", "buffer_tokens", "context", "seed",
               "corpus")
TRAINING_CORPUS = "training-corpus"


def check_recipe(recipe: Any) -> str:
    """"" when ``recipe`` is a folder name or a recipe object with known keys, else one line saying why not."""
    if isinstance(recipe, str):
        return "" if recipe.strip() else "sae: name a folder or give a training recipe"
    if not isinstance(recipe, dict):
        return f"sae: a folder or a training recipe (object), not {type(recipe).__name__}"
    unknown = sorted(set(recipe) - set(RECIPE_KEYS))
    if unknown:
        return f"sae: unknown key(s) {', '.join(unknown)} (keys: {', '.join(RECIPE_KEYS)})"
    if "corpus" not in recipe:
        return f"sae: a training recipe needs a corpus (a file, or {TRAINING_CORPUS!r})"
    return ""


def _corpus(loaded: Any, recipe: dict[str, Any]) -> str:
    corpus = str(recipe["corpus"])
    if corpus != TRAINING_CORPUS:
        return corpus
    from lm_workbench.pretrain.course_cards import read_card

    card = read_card(loaded.info.folder) if loaded.info.folder else None
    named = (card or {}).get("corpus")
    if not named or not Path(named).is_file():
        raise WorkbenchError(f"{loaded.info.spec} names no training corpus on this machine: give the SAE recipe a "
                             "corpus file")
    return str(named)


def sae_folder(loaded: Any, recipe: dict[str, Any]) -> Path:
    """Where ``recipe``'s SAE on ``loaded`` is kept."""
    from lm_workbench.paths import data_dir
    from lm_workbench.sae.sites import model_fingerprint

    fingerprint = model_fingerprint(loaded) or loaded.info.spec
    key = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]
    return data_dir() / "saes" / f"{hashlib.sha256(fingerprint.encode()).hexdigest()[:12]}-{key}"


def is_made(folder: Path) -> bool:
    return (folder / "cfg.json").is_file() and (folder / "sae_weights.safetensors").is_file()


def training_spec(loaded: Any, recipe: dict[str, Any], out: Path) -> Any:
    from lm_workbench.sae.spec import SaeTrainSpec

    fields = {k: v for k, v in recipe.items() if k != "corpus"}
    return SaeTrainSpec(model=loaded.info.spec, corpus=_corpus(loaded, recipe), out=str(out),
                        name=f"lecture SAE {fields.get('site') or ''}".strip(), **fields)


def ensure_sae(loaded: Any, recipe: str | dict[str, Any], *, cancel: Any = NEVER_CANCELLED
               ) -> Generator[Progress, None, str]:
    """The SAE folder of ``recipe`` on ``loaded``: a folder as it is, a recipe's kept SAE, or trained now (not
    recorded; the window records it through ``lm_workbench.sae.runs``). A training that stops leaves nothing."""
    problem = check_recipe(recipe)
    if problem:
        raise WorkbenchError(problem)
    if isinstance(recipe, str):
        return recipe
    folder = sae_folder(loaded, recipe)
    if is_made(folder):
        return str(folder)
    from lm_workbench.sae.train import sae_train_job

    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        yield from sae_train_job(training_spec(loaded, recipe, partial), loaded, cancel=cancel)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return str(folder)

"""An SAE a lecture step names by how it is trained, made on first use and kept.

A step's ``sae`` setting is either a folder (an SAE already there) or a training recipe, a JSON object with the
keys of ``sae train`` (``site``, ``kind``, ``expansion``, ``sparsity``, ``steps``, ``batch``, ``lr``,
``buffer_tokens``, ``context``, ``seed``) and ``corpus`` (a file, or ``"training-corpus"``: the corpus the course
model was pre-trained on, named on its card). The SAE is trained once per (model fingerprint, recipe) into
``<data folder>/saes/<fingerprint>-<recipe hash>/`` (seeds fixed, so every machine gets the same SAE from the same
model) and read from there afterwards. The window (the Features view's lecture step, with progress and Cancel)
records that training in the run store as an ``sae`` run (its curves in the Runs tab, the folder its artifact);
``presets verify`` trains it the same way without recording it, as it computes every other claim
(``summary.json`` in the folder keeps the curves either way).
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
    """The training finished: its weights and then its ``summary.json`` (written last) are there."""
    return all((folder / name).is_file() for name in ("cfg.json", "sae_weights.safetensors", "summary.json"))


def training_spec(loaded: Any, recipe: dict[str, Any], out: Path) -> Any:
    from lm_workbench.sae.spec import SaeTrainSpec

    fields = {k: v for k, v in recipe.items() if k != "corpus"}
    return SaeTrainSpec(model=loaded.info.spec, corpus=_corpus(loaded, recipe), out=str(out),
                        name=f"lecture SAE {fields.get('site') or ''}".strip(), **fields)


def ensure_sae(loaded: Any, recipe: str | dict[str, Any], *, cancel: Any = NEVER_CANCELLED,
               store_path: Any = None) -> Generator[Progress, None, str]:
    """The SAE folder of ``recipe`` on ``loaded``: a folder as it is, a recipe's kept SAE, or trained now;
    recorded as an ``sae`` run in the store at ``store_path`` when one is given (the window), else not (``presets
    verify``). A training that stops leaves no folder (a recorded one is marked cancelled); raises ``Cancelled``."""
    problem = check_recipe(recipe)
    if problem:
        raise WorkbenchError(problem)
    if isinstance(recipe, str):
        return recipe
    folder = sae_folder(loaded, recipe)
    if is_made(folder):
        return str(folder)
    from lm_workbench.sae.train import sae_train_job

    if store_path is not None:
        return (yield from _recorded_training(loaded, recipe, folder, cancel, store_path))
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        yield from sae_train_job(training_spec(loaded, recipe, partial), loaded, cancel=cancel)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return str(folder)


def _recorded_training(loaded: Any, recipe: dict[str, Any], folder: Path, cancel: Any, store_path: Any
                       ) -> Generator[Progress, None, str]:
    """Train ``recipe`` into ``folder`` as a recorded ``sae`` run (``lm_workbench.sae.runs``): the run's artifact
    is the kept folder itself (``is_made`` tells a finished one by the summary written last)."""
    from lm_workbench.engine.errors import Cancelled
    from lm_workbench.sae.runs import SaeTrainRun

    shutil.rmtree(folder, ignore_errors=True)  # a training that stopped before: start again
    folder.parent.mkdir(parents=True, exist_ok=True)
    summary = None
    try:
        summary = yield from SaeTrainRun(training_spec(loaded, recipe, folder), loaded).window_job(store_path)(cancel)
    finally:
        if summary is None or not is_made(folder):
            shutil.rmtree(folder, ignore_errors=True)
    if summary is None:
        raise Cancelled()
    return str(folder)

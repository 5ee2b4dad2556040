"""The workbench's own ELMo folders: ``config.json`` + ``model.safetensors`` (never pickle).

config.json holds ``{"model_type": "elmo", "options": <options.json dict>}``; the
options carry ``n_tokens_vocab`` when the model has a softmax. ``load_elmo`` also
opens a published AllenNLP folder (``*options.json`` + ``*weights.hdf5``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from lm_workbench.engine.elmo.config import ElmoConfig

if TYPE_CHECKING:  # torch only where a model is built: is_elmo_folder stays light (lm_workbench.engine.models.sources uses it)
    from lm_workbench.engine.elmo.bilm import ElmoModel

MODEL_TYPE = "elmo"
CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"


def save_elmo(model: ElmoModel, folder: str | Path) -> Path:
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = {"model_type": MODEL_TYPE, "options": model.config.to_options_json()}
    (folder / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    state = {name: t.detach().contiguous().cpu() for name, t in model.state_dict().items()}
    save_file(state, str(folder / WEIGHTS_NAME), metadata={"format": "pt", "model_type": MODEL_TYPE})
    return folder


def _allennlp_files(folder: Path) -> tuple[Path, Path] | None:
    options = sorted(folder.glob("*options.json"))
    weights = sorted(folder.glob("*.hdf5"))
    if len(options) == 1 and len(weights) == 1:
        return options[0], weights[0]
    return None


def is_elmo_folder(folder: str | Path) -> bool:
    """True for a workbench ELMo folder or a published AllenNLP one."""
    folder = Path(folder)
    if not folder.is_dir():
        return False
    config = folder / CONFIG_NAME
    if config.is_file():
        try:
            return json.loads(config.read_text(encoding="utf-8")).get("model_type") == MODEL_TYPE
        except (OSError, json.JSONDecodeError):
            return False
    return _allennlp_files(folder) is not None


def is_published_folder(folder: str | Path) -> bool:
    """True for a published AllenNLP folder (``*options.json`` + ``*.hdf5``, no workbench config.json)."""
    folder = Path(folder)
    return folder.is_dir() and not (folder / CONFIG_NAME).is_file() and _allennlp_files(folder) is not None


def default_words_mode(folder: str | Path) -> str:
    """How an ELMo in ``folder`` reads words when nobody chose: a published AllenNLP biLM was trained on
    tokenized text, so it takes the words as given; one the workbench trained splits them as its training did."""
    from lm_workbench.engine.elmo.words import WORDS_AS_GIVEN, WORDS_SPLIT

    return WORDS_AS_GIVEN if is_published_folder(folder) else WORDS_SPLIT


def load_elmo(folder: str | Path) -> ElmoModel:
    """An ``ElmoModel`` (eval mode) from either kind of folder; ValueError with the reason otherwise."""
    folder = Path(folder)
    config_path, weights_path = folder / CONFIG_NAME, folder / WEIGHTS_NAME
    if not config_path.is_file():
        files = _allennlp_files(folder) if folder.is_dir() else None
        if files is None:
            raise ValueError(f"{folder} is neither an ELMo folder (config.json + model.safetensors) "
                             "nor an AllenNLP one (one *options.json + one *.hdf5)")
        from lm_workbench.engine.elmo.hdf5_weights import load_allennlp_elmo

        return load_allennlp_elmo(*files)
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if config.get("model_type") != MODEL_TYPE:
        raise ValueError(f"{config_path} is not an ELMo config (model_type {config.get('model_type')!r})")
    if not weights_path.is_file():
        raise ValueError(f"{folder} has no {WEIGHTS_NAME}")
    from safetensors.torch import load_file

    from lm_workbench.engine.elmo.bilm import ElmoModel

    model = ElmoModel(ElmoConfig.from_options_json(config["options"]))
    model.load_state_dict(load_file(str(weights_path)), strict=True)
    return model.eval()

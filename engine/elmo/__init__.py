"""ELMo (Peters et al. 2018) in one readable package; no Qt, torch only where used.

    config.py        ElmoConfig (options.json), presets
    characters.py    tokens -> character ids (AllenNLP's convention), <S> </S>
    char_cnn.py      CharCNN: char embedding, convolutions, highway, projection
    lstm_cell.py     LstmWithProjection: TF's LSTMCell with projection and clipping
    bilm.py          ElmoModel, ElmoOutput, BilmLoss
    sampled_softmax.py  sampled_softmax_loss, log-uniform candidates (bilm-tf's training softmax)
    hdf5_weights.py  load_allennlp_elmo: published options.json + weights.hdf5
    checkpoint.py    save_elmo / load_elmo / is_elmo_folder: config.json + model.safetensors
    words.py         word splitting, WordTokenizer (the views' tokenizer), the biLM's word vocabulary
    presets.py       ELMO_PRESETS: the sizes ``pretrain --family elmo`` builds (tiny, course)

Names are imported on first use, so ``import lm_workbench.engine.elmo`` does not pull torch in.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ElmoConfig": "config", "PRESETS": "config", "preset": "config",
    "batch_to_char_ids": "characters", "token_to_char_ids": "characters",
    "ElmoModel": "bilm", "ElmoOutput": "bilm", "BilmLoss": "bilm",
    "load_allennlp_elmo": "hdf5_weights", "ElmoWeightsError": "hdf5_weights",
    "save_elmo": "checkpoint", "load_elmo": "checkpoint", "is_elmo_folder": "checkpoint",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"lm_workbench.engine.elmo.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'lm_workbench.engine.elmo' has no attribute {name!r}")

"""ELMo sizes to pre-train from scratch (``lm-workbench pretrain --family elmo --preset ...``).

``tiny`` trains in seconds on two CPU cores (tests, a first look at the
perplexity curve); ``course`` is lm_workbench.engine.elmo.config's course biLM (2 x 256-cell
LSTMs projected to 64, a 128-filter character CNN). Both read 50 characters
per word, as every published ELMo does. The softmax size is set when the
model is built (the word vocabulary of the corpus).
"""

from __future__ import annotations

from lm_workbench.engine.elmo.config import PRESETS, ElmoConfig

ELMO_PRESETS: dict[str, ElmoConfig] = {
    "tiny": ElmoConfig(char_embedding_dim=8, filters=((1, 16), (2, 16), (3, 32)), n_highway=1, lstm_dim=128,
                       projection_dim=32, n_layers=2),
    "course": PRESETS["course"],
}

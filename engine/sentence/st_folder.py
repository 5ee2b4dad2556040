"""A trained sentence encoder saved in the sentence-transformers folder layout.

``config.json``, ``model.safetensors`` and the tokenizer at the top (the Transformer module, path ""),
``1_Pooling/config.json`` (the pooling mode), ``modules.json`` listing both, ``sentence_bert_config.json`` (the
maximum sequence length) and ``config_sentence_transformers.json`` (cosine similarity). It opens with
``sentence_transformers.SentenceTransformer(folder)`` and in the workbench (``model_pooling`` reads the same
files, so STS with pooling ``model`` pools as the run trained).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lm_workbench.engine.sentence.names import ST_POOLING_FLAGS, pooling_name

POOLING_FOLDER = "1_Pooling"


def _write(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_st_folder(model: Any, tokenizer: Any, folder: str | Path, *, pooling: str, max_length: int) -> Path:
    """Save ``model`` (a plain transformers encoder: nothing left to fold) and ``tokenizer`` as a
    sentence-transformers folder that pools with ``pooling``; returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder), safe_serialization=True)
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:  # a decoder's (GPT-2): sentence-transformers
        import copy  # pads a batch; the attention mask hides the padding, so any token serves

        tokenizer = copy.deepcopy(tokenizer)
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.save_pretrained(str(folder))
    (folder / POOLING_FOLDER).mkdir(exist_ok=True)
    width = int(model.config.hidden_size)
    flags = {flag: mode == pooling_name(pooling) for mode, flag in ST_POOLING_FLAGS.items()}
    _write(folder / POOLING_FOLDER / "config.json", {
        "word_embedding_dimension": width, **flags, "pooling_mode_weightedmean_tokens": False, "include_prompt": True})
    _write(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": POOLING_FOLDER, "type": "sentence_transformers.models.Pooling"}])
    _write(folder / "sentence_bert_config.json", {"max_seq_length": int(max_length), "do_lower_case": False})
    _write(folder / "config_sentence_transformers.json", {
        "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "cosine",
        "__version__": {"lm_workbench": "sentence-embedding fine-tuning"}})
    return folder

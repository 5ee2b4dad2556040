"""Write the notebooks of docs/notebooks/ (stored without outputs) from the cells below.

    .venv/bin/python scripts/make_notebooks.py      # writes docs/notebooks/*.ipynb
    bash scripts/run-notebooks.sh                    # executes them headless (nbclient + ipykernel)

Each runs offline on MiniLM and on a tiny model it builds itself, in well under 2 minutes on 2 cores.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TINY_GPT2 = '''# A tiny GPT-2 built here (random weights, a byte-level BPE trained on Python's own docs): no download
import tempfile
from pathlib import Path

from pydoc_data.topics import topics
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

folder = Path(tempfile.mkdtemp()) / "tiny-gpt2"
bpe = Tokenizer(models.BPE())
bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.decoder = decoders.ByteLevel()
lines = [line for text in list(topics.values())[:200] for line in text.splitlines() if line.strip()]
bpe.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=500, special_tokens=["<|endoftext|>"],
                                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                    unk_token="<|endoftext|>", model_max_length=64)
GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=64, n_embd=64, n_layer=2, n_head=4)).save_pretrained(folder)
tokenizer.save_pretrained(folder)
gpt2 = lw.load(str(folder), offline=True)
gpt2'''

NOTEBOOKS = {
    "contextual-embeddings-and-attention.ipynb": [
        ("markdown", "# Contextual embeddings and attention\n\nThe same calls as `lm-workbench info`, `encode` and "
                     "`attention`, on MiniLM (offline). Results are objects: `to_dict()` is the command's "
                     "`--json`, `to_pandas()` a table, `plot()` a figure."),
        ("code", "import lm_workbench as lw\n\nm = lw.load(\"minilm\", offline=True)\nm.info().to_dict()"),
        ("code", "encoded = m.encode(\"The bank raised its rates. We sat on the river bank.\")\n"
                 "encoded.arrays[\"hidden_states\"].shape  # [layers + 1, tokens, hidden]"),
        ("code", "import numpy as np\n\nhidden = encoded.arrays[\"hidden_states\"][-1]\n"
                 "tokens = list(encoded.arrays[\"tokens\"])\nfirst, second = [i for i, t in enumerate(tokens) "
                 "if t == \"bank\"]\nfloat(np.dot(hidden[first], hidden[second]) / "
                 "(np.linalg.norm(hidden[first]) * np.linalg.norm(hidden[second])))  # the two banks differ"),
        ("code", "att = m.attention(\"The cat sat on the mat.\", layer=2, head=3)\natt.to_pandas().round(2)"),
        ("code", "att  # shown as its heat map"),
    ],
    "why-lens-attribution-patching-hooks.ipynb": [
        ("markdown", "# Why: the logit lens, attribution, patching and hooks\n\nOn a tiny GPT-2 built in the "
                     "notebook (random weights: the numbers mean nothing, the calls are the point)."),
        ("code", "import lm_workbench as lw\n\n" + TINY_GPT2),
        ("code", "lens = gpt2.lens(\"the name of the cat is\")\nlens.to_pandas().head()"),
        ("code", "gpt2.attribute(\"the name of the cat is\").plot()"),
        ("code", "gpt2.patch(clean=\"the name of the cat\", subject=\"cat\", target=\" is\", noise_samples=2)"),
        ("code", "logits, cache = gpt2.run_with_cache(\"the name of the cat is\", "
                 "names=[\"blocks.0.hook_resid_post\", \"blocks.1.attn.hook_pattern\"])\n"
                 "{name: tuple(value.shape) for name, value in cache.items()}"),
        ("code", "def zero_mlp(value, name):\n    return value * 0\n\n"
                 "patched = gpt2.run_with_hooks(\"the name of the cat is\", hooks=[(\"blocks.1.hook_mlp_out\", "
                 "zero_mlp)])\nfloat((patched - logits).abs().max())"),
    ],
}


def notebook(cells: list[tuple[str, str]]) -> dict:
    def cell(kind: str, text: str) -> dict:
        base = {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
        return base | ({"execution_count": None, "outputs": []} if kind == "code" else {})

    return {"cells": [cell(k, t) for k, t in cells], "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def main() -> None:
    folder = ROOT / "docs" / "notebooks"
    folder.mkdir(parents=True, exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        (folder / name).write_text(json.dumps(notebook(cells), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

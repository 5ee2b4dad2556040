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
    "contextual-embeddings.ipynb": [
        ("markdown", "# Contextual embeddings\n\nThe same calls as `lm-workbench info` and `encode`, on MiniLM "
                     "(offline). Results are objects: `to_dict()` is the command's `--json`, `to_pandas()` a table, "
                     "`plot()` a figure."),
        ("code", "import lm_workbench as lw\n\nm = lw.load(\"minilm\", offline=True)\nm.info().to_dict()"),
        ("code", "encoded = m.encode(\"The bank raised its rates. We sat on the river bank.\")\n"
                 "encoded.arrays[\"hidden_states\"].shape  # [layers + 1, tokens, hidden]"),
        ("code", "import numpy as np\n\nhidden = encoded.arrays[\"hidden_states\"][-1]\n"
                 "tokens = list(encoded.arrays[\"tokens\"])\nfirst, second = [i for i, t in enumerate(tokens) "
                 "if t == \"bank\"]\nfloat(np.dot(hidden[first], hidden[second]) / "
                 "(np.linalg.norm(hidden[first]) * np.linalg.norm(hidden[second])))  # the two banks differ"),
        ("code", "layers = encoded.arrays[\"hidden_states\"][:, [first, second]]\n"
                 "[round(float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))), 3) for a, b in layers]"
                 "  # per layer; layer 0 holds token + position embeddings: the two differ only by position there"),
    ],
    "attention-and-masking.ipynb": [
        ("markdown", "# Attention and masking\n\n`lm-workbench attention` as a call: one head's weights, on "
                     "MiniLM (an encoder: every token sees every token) and on a tiny GPT-2 built in the notebook "
                     "(a decoder: the causal mask hides the future, so the upper triangle is zero)."),
        ("code", "import lm_workbench as lw\n\nm = lw.load(\"minilm\", offline=True)\n"
                 "att = m.attention(\"The cat sat on the mat.\", layer=2, head=3)\natt.to_pandas().round(2)"),
        ("code", "att  # shown as its heat map"),
        ("code", TINY_GPT2),
        ("code", "causal = gpt2.attention(\"the name of the cat is\", layer=0, head=0)\n"
                 "causal.to_pandas().round(2)  # row i attends to tokens 0..i only"),
        ("code", "import numpy as np\n\nweights = np.asarray(causal.weights)\n"
                 "float(np.triu(weights, k=1).max()), weights.sum(axis=-1).round(4)  # 0 above the diagonal; rows sum to 1"),
        ("code", "logits, cache = gpt2.run_with_cache(\"the name of the cat is\", names=[\"blocks.0.attn.hook_pattern\"])\n"
                 "tuple(cache[\"blocks.0.attn.hook_pattern\"].shape)  # [batch, heads, query, key]: every head at once"),
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
    "fine-tuning-and-peft.ipynb": [
        ("markdown", "# Fine-tuning and PEFT\n\n`lm-workbench finetune`, `predict` and `finetune-merge` as calls, "
                     "on MiniLM with the shipped sentiment demo set and a quarter of an epoch per run (enough to "
                     "see the calls, not to learn the task). Each run lands in the run store (the window's Runs "
                     "tab) and returns a run object."),
        ("code", "import tempfile\n\nimport lm_workbench as lw\n\nm = lw.load(\"minilm\", offline=True)\n"
                 "out = tempfile.mkdtemp()\nSENTIMENT = \"engine/finetune/data/sentiment.tsv\"  # sentence<TAB>label\n"
                 "lora = m.finetune(task=\"seq-cls\", train=SENTIMENT, method=\"lora\", epochs=0.25, out=f\"{out}/lora\")\n"
                 "{key: lora.to_dict()[key] for key in (\"trainable_percent\", \"best_validation\", \"steps\")}"),
        ("code", "lora.curves()  # one row per logged step, one column per metric (pandas)"),
        ("code", "lora.predict(\"A warm and funny film.\").to_dict()  # = lm-workbench predict FOLDER --text ..."),
        ("code", "bitfit = m.finetune(task=\"seq-cls\", train=SENTIMENT, method=\"bitfit\", epochs=0.25, "
                 "out=f\"{out}/bitfit\")\n{run.to_dict()[\"method\"]: round(run.to_dict()[\"trainable_percent\"], 3) "
                 "for run in (lora, bitfit)}  # the share of parameters each method trains"),
        ("code", "lora_b = m.finetune(task=\"seq-cls\", train=SENTIMENT, method=\"lora\", seed=1, epochs=0.25, "
                 "out=f\"{out}/lora-b\")\nmerged = lw.finetune_merge((lora.folder, lora_b.folder), how=\"ties\", "
                 "density=0.5, out=f\"{out}/merged\")\n"
                 "{key: merged.to_dict()[key] for key in (\"how\", \"weights\", \"density\", \"adapter_type\")}"),
        ("code", "lw.predict(f\"{out}/merged\", text=\"A warm and funny film.\").to_dict()"),
    ],
    "sentence-encoders-and-retrieval.ipynb": [
        ("markdown", "# Sentence encoders and retrieval\n\nMiniLM is a sentence encoder: `sts` scores it on the "
                     "shipped STS demo pairs per layer, `retrieve` searches the shipped 32-passage demo corpus, "
                     "`retrieval_eval` measures it against BM25 on the demo BEIR folder, and `finetune` with "
                     "`task=\"sentence-embedding\"` trains it further."),
        ("code", "import lm_workbench as lw\n\nm = lw.load(\"minilm\", offline=True)\n"
                 "sts = m.sts(data=\"demo\")\nsts.to_dict()[\"spearman\"]  # Spearman's rho per layer (0 = embeddings)"),
        ("code", "m.retrieve(corpus=\"demo\", query=\"how do vaccines work\", k=3).to_dict()[\"results\"]"),
        ("code", "evaluation = m.retrieval_eval(data=\"engine/retrieval/data/demo\", bm25=True).to_dict()\n"
                 "{\"MiniLM\": evaluation[\"model\"], \"BM25\": evaluation[\"bm25\"]}"),
        ("code", "import tempfile\n\nsbert = m.finetune(task=\"sentence-embedding\", "
                 "train=\"engine/finetune/data/similarity.tsv\", method=\"full\", loss=\"cosine\", epochs=0.2, "
                 "out=tempfile.mkdtemp() + \"/sbert\")\n"
                 "sbert.predict(\"A man plays a guitar.\", text2=\"Someone is playing music.\").to_dict()  # cosine"),
    ],
    "instructions-and-preferences.ipynb": [
        ("markdown", "# Instructions and preferences\n\nInstruction tuning (`task=\"instruct\"`, the loss on the "
                     "answers only) and preference tuning (`task=\"preference\"`, DPO) on a tiny GPT-2 built in the "
                     "notebook, with the shipped demo sets and a fifth of an epoch each: the calls and the metrics "
                     "they report, not a model that follows instructions."),
        ("code", "import lm_workbench as lw\n\n" + TINY_GPT2),
        ("code", "out = tempfile.mkdtemp()\ninstruct = gpt2.finetune(task=\"instruct\", "
                 "train=\"engine/finetune/data/instruct_train.jsonl\", "
                 "validation=\"engine/finetune/data/instruct_heldout.jsonl\", method=\"full\", epochs=0.2, "
                 "lr=3e-3, out=f\"{out}/instruct\")\ninstruct.to_dict()[\"validation\"]  # loss, exact match, ROUGE-L"),
        ("code", "tuned = instruct.model(offline=True)\n"
                 "tuned.generate(\"plural of object\", chat=True, greedy=True, max_new_tokens=8).to_dict()[\"prompt\"]"
                 "  # the chat template the run used"),
        ("code", "dpo = lw.finetune(instruct.folder, task=\"preference\", train=\"engine/finetune/data/preference.jsonl\", "
                 "validation=\"engine/finetune/data/preference_validation.jsonl\", method=\"lora\", beta=0.1, "
                 "epochs=0.2, out=f\"{out}/dpo\")\n"
                 "dpo.curves()[[\"loss\", \"reward_margin\", \"preference_accuracy\"]].dropna(how=\"all\")"
                 "  # the loss starts at log 2"),
    ],
}


def notebook(cells: list[tuple[str, str]]) -> dict:
    def cell(number: int, kind: str, text: str) -> dict:
        base = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": text.splitlines(keepends=True)}
        return base | ({"execution_count": None, "outputs": []} if kind == "code" else {})

    return {"cells": [cell(number, k, t) for number, (k, t) in enumerate(cells)], "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def main() -> None:
    folder = ROOT / "docs" / "notebooks"
    folder.mkdir(parents=True, exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        (folder / name).write_text(json.dumps(notebook(cells), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Course models: tiny BERT, GPT-2, BART, T5 and ELMo pre-trained here, for demonstrations.

Without a network no pre-trained masked-LM, GPT, BART, T5 or ELMo weights can be
downloaded, so the workbench makes its own: tiny models trained for a minute
or two each on a corpus shipped in the package, the same on every machine (the English prose of Python 3.11's
documentation, ``lm_workbench.engine.pretrain.python_docs``) or a file the user picks.
They are not good language models; they are real ones, each beating the
corpus's unigram entropy (a model that learnt nothing but word frequencies),
which is enough to open them in every view. Each family's own signal is measured by
``tests/bench/bench_course_models.py`` (issue 48): BERT's masked-token accuracy above the unigram guess (holds),
a GPT-2 of 4 layers for layer-wise lessons (holds), ELMo layers that differ in what they probe (holds), the BART
decoder reading its encoder (holds since its logits bias starts at the unigram prior,
``lm_workbench.engine.pretrain.output_prior``), the T5 decoder likewise (holds since its noise spans are one token long
and it trains without dropout, with 4 heads, for 500 steps: ``COURSE_OBJECTIVE_CONFIG``; tests/bench/README.md).
The settings below were sized so all five together take under 10 minutes on 2 quiet CPU cores
(the ELMo is lm_workbench.engine.elmo.presets' tiny biLM, its softmax over every word of the corpus, so its loss
compares fairly with the unigram entropy).

Each lands in ``<data dir>/course-models/<family>`` (model in ``model/``,
with a ``workbench_model.json`` that names it "tiny, for demonstrations", carries
``COURSE_MODEL_VERSION`` and the build's seconds, and a README saying what it is)
and is added to the recent models. A family already built at this version is
skipped by a build that resumes (``lm_workbench.pretrain.course_folders.plan_build``). Before the first
one trains, what all of them will write is estimated from their sizes
(``estimated_bytes``) and a disk that will not hold it refuses with the numbers;
each run checks its own exact size again before its first step.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from lm_workbench.engine.progress import NEVER_CANCELLED
from lm_workbench.pretrain.course_build import DISPLAY_NAMES
from lm_workbench.pretrain.course_cards import CARD_FILE, COURSE_MODEL_VERSION  # noqa: F401 (re-exported: the version)
from lm_workbench.pretrain.course_folders import (  # noqa: F401 (re-exported: where course models live)
    COURSE_PREFIX, course_root, installed_course_models, resolve_course_spec,
)
from lm_workbench.pretrain.spec import PretrainSpec

# family -> (objective, architecture and data settings, training settings). Tuned for the Python-docs corpus.
COURSE_SETTINGS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "bert": ("mlm", {"hidden": 128, "layers": 2, "max_positions": 64, "vocab_size": 2000},
             {"steps": 900, "batch_size": 32, "lr": 2e-3, "warmup_steps": 40}),
    "gpt2": ("clm", {"hidden": 128, "layers": 4, "max_positions": 64, "vocab_size": 2000},
             {"steps": 400, "batch_size": 32, "lr": 2e-3, "warmup_steps": 30}),
    "bart": ("bart", {"hidden": 128, "layers": 2, "max_positions": 64, "vocab_size": 2000},
             {"steps": 300, "batch_size": 32, "lr": 2e-3, "warmup_steps": 30}),
    "t5": ("t5-span", {"hidden": 128, "layers": 2, "heads": 4, "max_positions": 64, "vocab_size": 2000,
                       "dropout": 0.0},
           {"steps": 500, "batch_size": 32, "lr": 2e-3, "warmup_steps": 30}),
    "elmo": ("bilm", {"preset": "tiny", "hidden": 32, "layers": 2, "max_positions": 32, "vocab_size": 250_000},
             {"steps": 300, "batch_size": 32, "lr": 5e-3, "warmup_steps": 30}),
}
# Objective settings that differ from the objective's defaults. BART: text infilling alone (30%, Poisson(3)
# spans; Lewis et al.'s best single noising) without sentence permutation. What makes the course BART read its
# encoder is not this but its logits bias starting at the unigram prior (every BART pre-training run does it:
# lm_workbench.engine.pretrain.output_prior); without it the encoder collapsed to one output for every input.
# T5: spans of one token (mean_span_length 1, 15% noise: the paper's i.i.d. "replace corrupted spans"), trained
# without dropout (as T5 1.1 pre-trains; COURSE_SETTINGS) with 4 heads of 32: each hidden token then sits between
# visible neighbours that only the encoder shows the decoder, and the course T5 reads its encoder (drop about 0.3,
# against 0.11 with 3-token spans, dropout 0.1 and 2 heads; tests/bench/README.md).
COURSE_OBJECTIVE_CONFIG: dict[str, dict[str, str]] = {
    "bart": {"sentence_permutation": "0", "text_infilling": "0.3"},
    "t5": {"mean_span_length": "1"},
}
COMMON_TRAINING = {"eval_every": 0, "eval_batches": 8, "log_every": 50, "checkpoint_every": 0,
                   "keep_checkpoints": 1, "device": "cpu", "schedule": "linear"}
MODEL_CARD_FILE = CARD_FILE


def display_name(family: str) -> str:
    """How the window lists a course model: ``"Tiny BERT (mlm) - tiny, for demonstrations"``."""
    objective = COURSE_SETTINGS[family][0]
    return f"Tiny {DISPLAY_NAMES[family]} ({objective}) - tiny, for demonstrations"


def course_spec(family: str, corpus: Path, out_root: Path) -> PretrainSpec:
    """The pre-training spec of one course model."""
    objective, arch, training = COURSE_SETTINGS[family]
    return PretrainSpec(family=family, objective=objective, corpus=[str(corpus)], out_dir=str(out_root / family),
                        preset=arch.get("preset", "tiny"), layers=arch["layers"], hidden=arch["hidden"],
                        heads=arch.get("heads"), dropout=arch.get("dropout"), max_positions=arch["max_positions"],
                        vocab_size=arch["vocab_size"],
                        objective_config=dict(COURSE_OBJECTIVE_CONFIG.get(family, {})),
                        training=COMMON_TRAINING | training, name=display_name(family))


def _distinct_words(corpus: Path, cap: int) -> int:
    """How many different whitespace-separated words the corpus has (at most ``cap``): the ELMo's softmax."""
    from lm_workbench.engine.text_input import TextLines

    seen: set[str] = set()
    for line in TextLines(corpus):  # the checked reader: a binary file is refused here, before any training
        seen.update(line.split())
        if len(seen) >= cap:
            return cap
    return len(seen)


def estimated_bytes(families: list[str], corpus: Path) -> int:
    """About how much the course models of ``families`` write: per model its checkpoint (weights and AdamW
    state), its model folder with tokenizer, and the packed data (about the corpus's size)."""
    from lm_workbench.engine.elmo.presets import ELMO_PRESETS
    from lm_workbench.runs import disk_space as space

    corpus_size = corpus.stat().st_size if corpus.is_file() else 0
    total = 0
    for family in families:
        _, arch, _ = COURSE_SETTINGS[family]
        if family == "elmo":
            words = _distinct_words(corpus, arch["vocab_size"]) if corpus.is_file() else arch["vocab_size"]
            params = space.elmo_parameters(words=words, hidden=arch["hidden"], layers=arch["layers"],
                                           cell=ELMO_PRESETS[arch.get("preset", "tiny")].lstm_dim)
            vocab = words
        else:
            params = space.transformer_parameters(vocab=arch["vocab_size"], hidden=arch["hidden"],
                                                  layers=arch["layers"], positions=arch["max_positions"],
                                                  encoder_decoder=family in ("bart", "t5"))
            vocab = arch["vocab_size"]
        total += space.training_bytes(space.checkpoint_bytes(params, params), saves=1, keep=1,
                                      outputs=params * 4 + space.tokenizer_bytes(vocab)) + 2 * corpus_size
    return total


def _vocabulary_hash(model_dir: Path) -> str | None:
    """SHA-256 of the model's tokenizer (vocabulary, rules, special ids): the same on every machine, since the
    course tokenizers train deterministically (issue 48); None when the folder has no tokenizer file."""
    import hashlib

    for name in ("tokenizer.json", "vocab.json", "vocab.txt"):
        path = model_dir / name
        if path.is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()
    return None


def _write_card(model_dir: Path, family: str, summary: dict[str, Any], corpus: Path,
                elapsed_s: float | None = None) -> None:
    """Say what the model is, where a person and the window will see it; ``version`` is
    ``COURSE_MODEL_VERSION``, ``build_seconds`` the build's wall time (what the next build's estimate reads)."""
    card = {"display_name": display_name(family), "tiny_for_demonstrations": True, "family": family,
            "version": COURSE_MODEL_VERSION,
            "objective": summary["objective"], "corpus": str(corpus), "steps": summary["steps"],
            "validation_loss": summary["validation_loss"], "unigram_entropy": summary["unigram_entropy"],
            "parameters": summary["parameters"], "vocabulary_sha256": _vocabulary_hash(model_dir),
            "build_seconds": None if elapsed_s is None else round(float(elapsed_s), 1),
            "tokens_per_s": summary.get("tokens_per_s")}
    (model_dir / MODEL_CARD_FILE).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (model_dir / "README.md").write_text(
        f"# {display_name(family)}\n\n"
        f"A {summary['parameters']:,}-parameter {DISPLAY_NAMES[family]} pre-trained by LM Workbench for "
        f"{summary['steps']} steps ({summary['objective']}) on {corpus.name}. It is tiny and meant for "
        "demonstrations: it shows how the views work on a real model of this family, not what a large "
        f"pre-trained model knows. Validation loss {summary['validation_loss']:.3f} nats per token against the "
        f"corpus's unigram entropy of {summary['unigram_entropy']:.3f}.\n", encoding="utf-8")


def train_course_models(*, corpus: str | Path | None = None, out_root: str | Path | None = None,
                        families: list[str] | None = None, cancel: Any = NEVER_CANCELLED,
                        echo: Callable[[str], None] | None = None, register: bool = True,
                        announce: Callable[[int, int, str], None] | None = None) -> list[dict[str, Any]]:
    """Pre-train the course models of ``families`` (each a recorded ``pretrain`` run, in order); one result per
    family built.

    ``corpus`` None uses the Python-docs corpus (written into the course
    folder). Each result has the summary's numbers plus ``elapsed_s`` and
    ``below_unigram_entropy``. With ``register`` the model folders are added
    to the recent models in the settings. ``announce(k, n, family)`` is called as model k of n starts (the CLI
    says "model 2 of 5: …" with its estimate) and ``echo`` gets the training's own lines, each prefixed
    "[2/5 GPT-2] "; either may be None. Ctrl-C (or ``cancel``) stops the model that runs: the models not
    started are not recorded.
    """
    from lm_workbench.engine.pretrain.python_docs import python_docs_corpus
    from lm_workbench.pretrain.runs import run_recorded
    from lm_workbench.settings import load_settings, save_settings

    from lm_workbench.runs.disk_space import check_space

    root = Path(out_root) if out_root else course_root()
    root.mkdir(parents=True, exist_ok=True)
    corpus_path = Path(corpus) if corpus else python_docs_corpus(root / "corpus")
    chosen = list(families or COURSE_SETTINGS)
    check_space(root, estimated_bytes(chosen, corpus_path), f"training {len(chosen)} course model(s)")
    results = []
    for k, family in enumerate(chosen, 1):
        cancel.check()
        spec = course_spec(family, corpus_path, root)
        if announce:
            announce(k, len(chosen), family)
        tag = f"[{k}/{len(chosen)} {DISPLAY_NAMES[family]}] "
        start = time.monotonic()
        summary = run_recorded(spec, echo=(lambda line, tag=tag: echo(tag + line)) if echo else None)
        if summary is None or summary.get("cancelled"):
            break
        elapsed = time.monotonic() - start
        model_dir = Path(summary["model_dir"])
        _write_card(model_dir, family, summary, corpus_path, elapsed)
        results.append({"family": family, "objective": spec.objective, "name": display_name(family),
                        "run_id": summary["run_id"], "model_dir": str(model_dir),
                        "validation_loss": summary["validation_loss"], "unigram_entropy": summary["unigram_entropy"],
                        "below_unigram_entropy": bool(summary["validation_loss"] < summary["unigram_entropy"]),
                        "steps": summary["steps"], "parameters": summary["parameters"],
                        "tokens_per_s": summary["tokens_per_s"], "elapsed_s": round(elapsed, 1),
                        "version": COURSE_MODEL_VERSION})
    if register and results:
        settings = load_settings()
        for r in reversed(results):
            settings.add_recent(r["model_dir"])
        save_settings(settings)
    return results

"""``finetune``, ``predict`` and ``finetune-merge``: fine-tuning from the command line.

``lm-workbench finetune [MODEL] --task seq-cls --train FILE --method lora --lora-rank 8 --epochs 3
--out DIR --json`` runs in this process and records a ``finetune`` run in the run store (like
``pretrain``); its JSON has ``run_id``, ``trainable_parameters``, ``total_parameters`` and
``validation`` (metric -> value) first, then the rest of ``summary.json``. Each method's settings are
options named ``--<method>-<setting>`` (``--lora-rank``, ``--houlsby-reduction-factor``), made from
the method's ``Config`` when the ``finetune`` command is parsed (not when the parser is built, so
other commands never import the method plugins). ``finetune --resume RUN_OR_DIR`` continues a stopped
run (a run id, its output folder or a checkpoint folder) with the settings it was started with; under
``torchrun`` every rank trains and rank 0 records and prints. ``predict DIR --text ...`` answers with a run's
model; ``finetune-merge DIR --out DIR2`` folds a LoRA (IA³, DoRA) run into the base weights, and
``finetune-merge DIR1 DIR2 [--how linear|linear-factors|ties|dare|dare-ties] [--weights 0.5,0.5] [--density 0.5]
[--seed N] [--fold] --out DIR3`` combines several runs into one adapter (``lm_workbench.engine.finetune.merging``;
``linear`` is exactly Σ wᵢ·ΔWᵢ, the others are peft's rules on LoRA's factors); its JSON keeps ``out_dir``,
``method``, ``merged_from`` and adds ``how``, ``weights``, ``sources``, ``rank`` (and ``out``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from lm_workbench.engine.finetune.merge_math import HOWS
from lm_workbench.engine.finetune.names import SENTENCE_LOSSES, SENTENCE_TRAIN_POOLINGS, TASKS, TRIPLET_MARGIN
from lm_workbench.cli.common import (
    OneLineParser, add_tsv_quoting_option, echo, handled_by, note, print_json,
)

NEGATIVE_NUMBERS = re.compile(r"^-\.?\d[\d.eE+-]*(,\s*[-+]?[\d.eE+-]*)*$")  # -1 | -0.5 | -1,1 | -1e-3,2


class FinetuneParser(OneLineParser):
    """The ``finetune`` parser: adds every method's ``--<method>-<setting>`` options the first time it parses, and
    refuses a ``--<method>-<x>`` that names no setting of that method with one line naming the nearest setting
    (``lm_workbench.finetune.method_settings``: the same check the Python API's ``method_settings`` goes through;
    no abbreviation of a setting is taken)."""

    method_fields: Any = None

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        from lm_workbench.finetune.method_settings import add_method_options, first_unknown_option, method_fields

        if self.method_fields is None:
            self.method_fields = method_fields()
            add_method_options(self, self.method_fields)
        words = list(sys.argv[1:] if args is None else args)
        line = first_unknown_option(words, self._option_string_actions, self.method_fields)
        if line is not None:
            self.error(line)
        return super().parse_known_args(words, namespace)


def register(sub: Any) -> None:
    """Add ``finetune``, ``predict`` and ``finetune-merge`` to the CLI's subparsers."""
    ft = sub.add_parser("finetune", help="fine-tune a model on a task with a method (full, LoRA, adapters, ...)")
    ft.__class__ = FinetuneParser  # subparsers are built by one class; this one adds method options lazily
    ft.add_argument("model", nargs="?", default="",
                    help="the base model: a folder, a hub id or 'minilm' (default: the built-in MiniLM)")
    ft.add_argument("--task", choices=TASKS, help="the task type of the files (required unless --resume)")
    ft.add_argument("--train", metavar="FILE", help="training file (TSV/CSV/JSONL, CoNLL, SQuAD JSON)")
    ft.add_argument("--validation", metavar="FILE", help="validation file (default: 10%% of --train held out)")
    ft.add_argument("--method", help="full, features, lora, prefix, prompt, houlsby, pfeiffer, bitfit, "
                                     "parallel-adapter, mam, dora, rslora, ia3, vera, loha, lokr, oft")
    ft.add_argument("--epochs", type=float, help="passes over the training set (default 3)")
    ft.add_argument("--out", metavar="DIR", help="output folder (adapter, predictions, summary)")
    ft.add_argument("--lr", type=float, help="peak learning rate (default: the method's own)")
    ft.add_argument("--batch-size", type=int, help="examples per batch, per process under torchrun (default 16)")
    ft.add_argument("--max-length", type=int, help="tokens per example (default 128)")
    ft.add_argument("--seed", type=int, help="seed of the head, the split and the data order (default 0)")
    ft.add_argument("--text-columns", metavar="COL[,COL2]",
                    help="the text column(s) of a classification file (two: a pair); seq2seq: source,target")
    ft.add_argument("--columns", dest="text_columns", metavar="A,B[,C]",
                    help="sentence-embedding: the columns (default by header: sentence1,sentence2,score or "
                         "anchor,positive,negative; NLI premise,hypothesis,label)")
    ft.add_argument("--loss", choices=SENTENCE_LOSSES,
                    help="sentence-embedding: triplet (Euclidean, margin), cosine (cos regressed to score/max), "
                         "cosent, mnrl (in-batch negatives); default by the data: cosine for scored pairs, triplet "
                         "for triplets, mnrl for pairs")
    ft.add_argument("--pooling", choices=SENTENCE_TRAIN_POOLINGS,
                    help="sentence-embedding: how token vectors become the sentence vector (default mean)")
    ft.add_argument("--margin", type=float, help=f"sentence-embedding, triplet loss: the margin ε (default "
                                                 f"{TRIPLET_MARGIN:g})")
    ft.add_argument("--template", metavar="auto|plain|FILE",
                    help="instruct: the chat template: the model's own (auto; the plain one when it has none, said), "
                         "plain (### Instruction / ### Response), or a Jinja template file (default auto)")
    ft.add_argument("--beta", type=float, metavar="BETA",
                    help="--task preference: DPO's beta, how far the model may move from the reference (default 0.1)")
    add_tsv_quoting_option(ft, default=None)
    ft.add_argument("--keep-unseen-labels", action="store_true", default=None,
                    help="seq-cls, token-cls: a validation label the training examples lack is refused unless this "
                         "leaves its examples out of validation (counted in notes)")
    ft.add_argument("--train-setting", action="append", default=[], metavar="KEY=VALUE",
                    help="any other training setting, e.g. --train-setting threads=2 (repeatable)")
    ft.add_argument("--resume", metavar="RUN_OR_DIR",
                    help="continue a cancelled, failed or killed run with its own settings: its run id, its "
                         "output folder or one of its checkpoint folders (give no other run setting)")
    handled_by(ft, cmd_finetune, json_help="print the summary as JSON")

    pr = sub.add_parser("predict", help="a fine-tuned model's prediction for a text")
    pr.add_argument("folder", metavar="DIR", help="a fine-tuning output folder (--out of 'finetune')")
    pr.add_argument("--text", required=True, help="the text (QA: the question; token-cls: words split on spaces)")
    pr.add_argument("--text2", help="the second sentence of a pair (a sentence-embedding model: the text to compare "
                                    "with; prints the cosine similarity)")
    pr.add_argument("--context", help="the passage a QA model finds the answer in")
    handled_by(pr, cmd_predict)

    mg = sub.add_parser("finetune-merge", help="fold a LoRA/IA³ run into the base weights, or combine several "
                                               "runs into one adapter (linear, TIES, DARE)")
    mg.add_argument("folders", nargs="+", metavar="DIR",
                    help="fine-tuning output folder(s): one is folded into its base weights; several (LoRA or IA³ "
                         "runs on one base, one label set) are combined into one adapter")
    mg.add_argument("--how", choices=HOWS, default="linear",
                    help="how several adapters combine: linear is exact task arithmetic, Σ wᵢ·ΔWᵢ for any weights "
                         "(LoRA: the factors concatenated, rank Σ rᵢ, as peft's 'cat'); linear-factors, ties, dare "
                         "(dare_linear) and dare-ties are peft's add_weighted_adapter rules on LoRA's factors A and "
                         "B separately (one rank; cross terms Bᵢ·Aⱼ, so not the same rule on ΔW) (default linear)")
    mg.add_argument("--weights", metavar="W1,W2,...", help="one weight per run, negative ones too (-1,1), not all 0 "
                                                           "(default 1/n each); the task heads are combined with "
                                                           "the same weights")
    # argparse takes "-1,1" for an option (its negative-number test knows one number, not a list): widen the test
    mg._negative_number_matcher = NEGATIVE_NUMBERS
    mg.add_argument("--density", type=float, default=0.5,
                    help="ties/dare: the share of each adapter's entries kept (default 0.5)")
    mg.add_argument("--seed", type=int, default=0, help="dare: the seed of the random drops (default 0)")
    mg.add_argument("--fold", action="store_true",
                    help="fold the combined adapter into the base weights (a plain model folder); one run is "
                         "always folded")
    mg.add_argument("--out", required=True, metavar="DIR", help="the merged output folder")
    handled_by(mg, cmd_merge)


def spec_from_args(args: argparse.Namespace) -> Any:
    """The ``FineTuneSpec`` a ``finetune`` command line describes (``compute_training.finetune_spec``)."""
    from lm_workbench.command_results.compute_training import finetune_spec

    return finetune_spec(args)


def cmd_finetune(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_training import finetune
    from lm_workbench.engine.maths import undefined

    said: list[str] = []  # notes printed before training (the label rule's), not printed again after it

    def early_note(line: str) -> None:
        said.append(line)
        note(line)

    result = finetune(args, echo=None if args.json else echo, quiet=args.json, on_note=early_note)
    summary = result.to_dict()
    if summary is None:  # a rank other than 0 under torchrun: rank 0 reports
        return 0
    if result.cancelled:
        where = f" at step {summary['steps']}" if summary.get("steps") is not None else ""
        print(f"{Path(sys.argv[0]).name}: fine-tuning run {summary['run_id']} cancelled{where}; continue it with "
              f"--resume {summary['run_id']} (or --resume {summary['out_dir']})",
              file=sys.stderr)
        return result.exit_code
    if args.json:
        print_json(summary)
        return 0
    notes = summary.get("notes") or []
    for line in notes:
        if line not in said and summary.get("task") != "instruct":  # instruct prints its notes below
            note(line)
    shown = ", ".join(f"{k} {undefined.shown(v, k, notes)}" for k, v in summary["validation"].items()
                      if v is None or isinstance(v, (int, float)))
    if summary.get("task") == "instruct":
        _say_instruct(summary)
    if summary.get("before") and summary.get("after"):  # preference: the model's own choice on held-out pairs
        shown += (f"; chosen answer preferred on {summary['before']['preference_accuracy']:.0%} of held-out pairs "
                  f"before, {summary['after']['preference_accuracy']:.0%} after")
    print(f"run {summary['run_id']}: {summary['method']} on {summary['task']}, {summary['trainable_parameters']:,} of "
          f"{summary['total_parameters']:,} parameters trained ({summary['trainable_percent']:.2f}%), "
          f"{summary['steps']} steps in {summary['wall_s']:.1f} s; validation {shown or 'loss only'}; saved in "
          f"{summary['out_dir']}")
    if summary.get("rows_cut"):
        for line in summary.get("notes", []):  # rows longer than the max length, cut and counted
            print(line)
    sentence = summary.get("sentence")
    if sentence:  # the sentence-embedding task: its loss and pooling, what validation gave, where the model is
        print(f"{sentence['loss']} loss, {sentence['pooling']} pooling; " + "; ".join(sentence["notes"]))
        print(sentence["sentence_transformers_note"])
    return 0


def _say_instruct(summary: dict[str, Any]) -> None:
    """The instruct run's counts, what was skipped or cut, and the before/after scores, before the run line."""
    print(f"trained tokens {summary['trained_tokens']:,} of {summary['total_tokens']:,} in one pass "
          f"({summary['examples']} examples; the loss covers the answers only)")
    for line in summary.get("notes", []):
        print(line)
    table = summary.get("before_after") or {}
    if table:
        print(f"held-out exact match {table['before']['exact_match']:.3f} before, {table['after']['exact_match']:.3f} "
              f"after; ROUGE-L {table['before']['rougeL']:.3f} before, {table['after']['rougeL']:.3f} after")


def cmd_predict(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_models import predict
    from lm_workbench.requests import request_of

    result = predict(request_of(args)).to_dict()
    if args.json:
        print_json(result)
    elif result["task"] == "seq-cls":
        print(f"{result['label']} ({result['confidence']:.3f})")
    elif result["task"] == "token-cls":
        print(" ".join(f"{t['word']}/{t['tag'] if t['tag'] is not None else '-'}" for t in result["tokens"]))
    elif result["task"] == "qa":
        print(f"{result['answer']!r} ({result['confidence']:.3f})")
    elif result["task"] == "sentence-embedding":
        print(f"cosine similarity {result['cosine']:.4f} ({result['pooling']} pooling)")
    elif result["task"] == "instruct":
        print(result["answer"])
    else:
        print(result["text"])
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_models import finetune_merge
    from lm_workbench.requests import request_of

    summary = finetune_merge(request_of(args)).to_dict()
    if args.json:
        print_json(summary)
        return 0
    if len(summary["sources"]) == 1:
        print(f"merged into {summary['out_dir']}")
    else:
        weights = ", ".join(f"{w:g}" for w in summary["weights"])
        print(f"combined {len(summary['sources'])} runs ({summary['how']}, weights {weights}) into "
              f"{summary['out_dir']}" + (" (folded into the base weights)" if summary["folded"] else
                                         f" (a {summary['method']} adapter; it opens in predict)"))
    for line in summary["notes"]:
        print(f"  {line}")
    return 0

"""``prompt-eval`` and ``generate``: the prompting lab from the command line.

``lm-workbench prompt-eval MODEL --template "[x] Overall, it was a [z] movie." --verbalizer
"pos=great,good;neg=terrible,bad" --data FILE [--k-shot K] [--seed S] [--calibrate] --json`` scores every
example of a labelled file (TSV/CSV/JSONL with ``sentence``/``text`` and ``label``; ``sentiment`` or
``topic`` for the built-in sets' examples) and prints::

    {"labels": [...], "accuracy": A, "macro_f1": F, "confusion_matrix": [[...]], "calibrated_accuracy": ...,
     "prompts": [{"name", "template", "mode", "verbalizer", "raw": {...}, "calibrated": {...}, ...}],
     "examples": N, "demonstrations": [...], "notes": [...], "small_model": "..." or null, "run_id": R}

``notes`` says what the label rule did (a verbalizer label matched to the data's by value, ``1`` and ``1.0``; a
label with no demonstration); a label whose every example was drawn as a demonstration is refused unless
``--keep-unseen-labels``.

``--template`` and ``--verbalizer`` may repeat: every template is evaluated with every verbalizer, side by
side (the top-level numbers are the first prompt's). The evaluation is recorded as a ``prompt-eval`` run.

``lm-workbench generate MODEL --text "..." [--chat [--template auto|plain|FILE]] [--greedy | --temperature T --top-k K --top-p P]
--max-new-tokens N [--seed S] [--stop STRING] --json`` prints ``{"token_ids": [...], "text": "...",
"probs": [...], "tokens": [{"index", "id", "text", "prob"}], "stopped_by": "...", "prompt_ids": [...]}``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lm_workbench.engine.prompting.names import MODES, MULTI_TOKEN, SELECTIONS
from lm_workbench.cli.common import (
    add_model_options, add_tsv_quoting_option, evaluated, handled_by, load_for, note, print_json,
)
from lm_workbench.command_results.compute_evaluations import (  # noqa: F401 - its name here
    prompt_eval_spec as spec_from_args,
)


def register(sub: Any) -> None:
    """Add ``prompt-eval`` and ``generate`` to the CLI's subparsers."""
    ev = sub.add_parser("prompt-eval", help="evaluate cloze or prefix prompts with a verbalizer on labelled data")
    add_model_options(ev)
    ev.add_argument("--template", action="append", required=True, metavar="TEXT",
                    help="a template with [x] (and [x2] for pairs) and [z]; repeat to compare several")
    ev.add_argument("--verbalizer", action="append", required=True, metavar="SPEC",
                    help="label=word,word;label=word; repeat to compare several")
    ev.add_argument("--data", required=True, metavar="FILE",
                    help="a labelled .tsv/.csv/.jsonl, or the name of a built-in set (sentiment, topic)")
    add_tsv_quoting_option(ev)
    ev.add_argument("--mode", choices=["auto", *MODES], default="auto",
                    help="cloze (masked LM) or prefix (decoder / encoder-decoder); auto: from the model")
    ev.add_argument("--k-shot", type=int, default=0, metavar="K", help="demonstrations before each input")
    ev.add_argument("--selection", choices=SELECTIONS, default="random",
                    help="how demonstrations are chosen (similar: by the built-in sentence model)")
    ev.add_argument("--seed", type=int, default=0, help="the draw of demonstrations (default 0)")
    ev.add_argument("--calibrate", action="store_true", help="also report contextual calibration (Zhao et al.)")
    ev.add_argument("--multi-token", choices=MULTI_TOKEN, default="left-to-right",
                    help="masked LMs: how answers of several subwords are scored")
    ev.add_argument("--length-normalise", action="store_true", help="score answers by mean log-prob per token")
    ev.add_argument("--limit", type=int, metavar="N", help="evaluate only the first N examples")
    ev.add_argument("--keep-unseen-labels", action="store_true",
                    help="go on when a label's every example was drawn as a demonstration (none of it is evaluated; "
                         "said in notes); refused without this")
    handled_by(ev, cmd_prompt_eval)

    gen = sub.add_parser("generate", help="generate text after a prompt (decoders, encoder-decoders)")
    add_model_options(gen)
    gen.add_argument("--text", required=True, help="the prompt (an encoder-decoder's source)")
    gen.add_argument("--greedy", action="store_true", help="always the most probable token (the default)")
    gen.add_argument("--temperature", type=float, help="sample, dividing the logits by T")
    gen.add_argument("--top-k", type=int, help="sample from the K most probable tokens")
    gen.add_argument("--top-p", type=float, help="sample from the smallest set of tokens with probability P")
    gen.add_argument("--max-new-tokens", type=int, default=40, metavar="N", help="at most N tokens (default 40)")
    gen.add_argument("--seed", type=int, default=0, help="the sampling seed (default 0)")
    gen.add_argument("--stop", action="append", default=[], metavar="STRING", help="stop once the text has it")
    gen.add_argument("--chat", action="store_true",
                     help="format the text as a user turn with the chat template (an instruct run's own; a model's "
                          "own, else the plain one) and print the answer")
    gen.add_argument("--template", metavar="auto|plain|FILE", help="with --chat: the chat template (default: the "
                     "instruct run's, or auto)")
    handled_by(gen, cmd_generate)


def cmd_prompt_eval(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_evaluations import prompt_eval
    from lm_workbench.prompting.runs import PromptEvalRun

    computed = evaluated(PromptEvalRun(spec_from_args(args)), args, prompt_eval)
    if computed is None:
        return 0
    result, small = computed.engine_result, computed["small_model"]
    if small:
        note(small)
    print(f"{'prompt':<8} {'accuracy':>9} {'macro-F1':>9}" + (f" {'calibrated':>10}" if args.calibrate else ""))
    for evaluation in result.prompts:
        line = f"{evaluation.name:<8} {evaluation.raw.accuracy:>9.3f} {evaluation.raw.macro_f1:>9.3f}"
        if evaluation.calibrated is not None:
            line += f" {evaluation.calibrated.accuracy:>10.3f}"
        print(line)
    print(f"{len(result.examples)} examples, {args.k_shot}-shot; run {computed['run_id']}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_why import generate
    from lm_workbench.requests import request_of

    computed = generate(request_of(args), None, load=lambda: load_for(args))  # checks before the model loads
    data = computed.to_dict()
    if args.json:
        print_json(data)
    elif args.chat:
        if data["note"]:
            print(data["note"], file=sys.stderr)
        print(data["text"])
    else:
        print(args.text + data["text"])
    return 0

"""``pretrain``: pre-training from the command line.

``lm-workbench pretrain --family bert --objective mlm --corpus a.txt --steps 300 --out DIR --json``
runs in this process (so ``torchrun`` can start it on several processes) but
records the run in the run store like the window's long-run lane does, so
``lm-workbench runs list`` and the runs browser show it. The first Ctrl-C
asks the loop to stop: it saves a checkpoint, the run is marked cancelled and
the command says how to resume; a second Ctrl-C stops at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lm_workbench.cli.common import echo, handled_by, print_json
from lm_workbench.pretrain.spec import FAMILIES, PRESET_NAMES, PretrainSpec



def register(sub: Any) -> None:
    """Add ``pretrain`` to the CLI's subparsers."""
    pre = sub.add_parser("pretrain", help="pre-train a BERT, GPT-2, BART, T5 or ELMo model from scratch on text files")
    pre.add_argument("--family", required=True, choices=FAMILIES, help="the model family")
    pre.add_argument("--objective", required=True, help="a pre-training objective for the family (see 'plugins list')")
    pre.add_argument("--corpus", required=True, nargs="+", metavar="FILE", help="text (.txt) or .jsonl files")
    pre.add_argument("--out", required=True, metavar="DIR", help="output folder: tokenizer, checkpoints, model")
    pre.add_argument("--preset", default="tiny", choices=PRESET_NAMES,
                     help="size (Turc et al. 2019): tiny L2/H128, mini L4/H256, small L4/H512, base L12/H768; "
                          "elmo: tiny or course")
    for name in ("layers", "hidden", "heads", "intermediate"):
        pre.add_argument(f"--{name}", type=int, help=f"override the preset's {name}")
    pre.add_argument("--dropout", type=float, metavar="P",
                     help="every dropout probability of the model (default: the family's, 0.1; not for elmo)")
    pre.add_argument("--seq-len", type=int, default=128, help="sequence length = max positions (default 128)")
    pre.add_argument("--vocab-size", type=int, default=8000, help="tokenizer vocabulary size (default 8000)")
    pre.add_argument("--validation-fraction", type=float, default=0.05,
                     help="share of the documents held out for validation (default 0.05)")
    pre.add_argument("--steps", type=int, help="optimizer steps (default 300)")
    pre.add_argument("--batch-size", type=int, help="examples per batch and process (default 16)")
    pre.add_argument("--lr", type=float, help="peak learning rate (default 5e-4)")
    pre.add_argument("--seed", type=int, help="seed of data order, masking and initialisation (default 0)")
    pre.add_argument("--checkpoint-every", type=int, help="save a checkpoint every N steps (default: at the end)")
    pre.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where to train (default auto)")
    pre.add_argument("--train", action="append", default=[], metavar="KEY=VALUE",
                     help="any other training setting, e.g. --train warmup_steps=10 (repeatable)")
    pre.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="an objective setting, e.g. --set mask_rate=0.2 (repeatable)")
    pre.add_argument("--resume", metavar="DIR", help="continue a run: its output folder or a checkpoint folder")
    pre.add_argument("--name", help="a name for the run in the runs list")
    handled_by(pre, cmd_pretrain, json_help="print the summary as JSON")


def spec_from_args(args: argparse.Namespace) -> PretrainSpec:
    """The ``PretrainSpec`` a ``pretrain`` command line describes (``compute_training.pretrain_spec``)."""
    from lm_workbench.command_results.compute_training import pretrain_spec

    return pretrain_spec(args)


def _print_summary(summary: dict[str, Any]) -> None:
    print(f"run {summary['run_id']}: {summary['steps']} steps, loss {summary['first_loss']:.4f} -> "
          f"{summary['final_loss']:.4f}, validation {summary['validation_loss']:.4f} "
          f"(unigram entropy {summary.get('unigram_entropy', float('nan')):.4f}), "
          f"{summary['tokens_per_s']:.0f} tokens/s; model in {summary['model_dir']}")
    if summary.get("speed"):
        from lm_workbench.pretrain.speed_text import describe_speed

        print(f"speed: {describe_speed(summary)}")


def cmd_pretrain(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_training import pretrain

    result = pretrain(args, echo=None if args.json else echo)
    summary = result.to_dict()
    if summary is None:  # a non-zero rank under torchrun: rank 0 reports
        return 0
    if result.cancelled:
        print(f"{Path(sys.argv[0]).name}: cancelled at step {summary['steps']}; checkpoint saved in "
              f"{summary.get('checkpoint')}; continue with --resume {Path(args.out)}", file=sys.stderr)
        return result.exit_code
    if args.json:
        print_json(summary)
    else:
        _print_summary(summary)
    return 0

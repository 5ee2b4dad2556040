"""``course-models``: pre-train the tiny BERT, GPT-2, BART, T5 and ELMo models the lectures demonstrate with."""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import echo, print_json
from lm_workbench.pretrain.spec import FAMILIES


def register(sub: Any) -> None:
    """Add ``course-models`` to the CLI's subparsers."""
    course = sub.add_parser("course-models",
                            help="pre-train tiny BERT, GPT-2, BART, T5 and ELMo models for demonstrations")
    course.add_argument("--corpus", metavar="FILE", help="a text file (default: the English text of Python's docs)")
    course.add_argument("--out", metavar="DIR", help="where to save them (default: the data folder's course-models)")
    course.add_argument("--families", nargs="+", choices=FAMILIES, help="only these families")
    course.add_argument("--json", action="store_true", help="print JSON")
    course.set_defaults(handler=cmd_course_models)


def cmd_course_models(args: argparse.Namespace) -> int:
    from lm_workbench.pretrain.course_models import train_course_models

    results = train_course_models(corpus=args.corpus, out_root=args.out, families=args.families,
                                  echo=None if args.json else echo)
    if args.json:
        print_json({"models": results})
    else:
        for r in results:
            print(f"{r['family']:<5} {r['objective']:<8} validation {r['validation_loss']:.3f} < unigram entropy "
                  f"{r['unigram_entropy']:.3f}: {r['below_unigram_entropy']}; {r['elapsed_s']:.0f} s; {r['model_dir']}")
    return 0

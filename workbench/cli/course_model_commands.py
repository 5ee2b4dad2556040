"""``course-models``: pre-train the tiny BERT, GPT-2, BART, T5 and ELMo models the lectures demonstrate with.

A build resumes: a family already built at this version (``COURSE_MODEL_VERSION`` in its card) in the output
folder is skipped, and said; ``--rebuild`` builds it again. Each model is announced as "model k of n" with an
estimate, its training lines prefixed "[k/n family]", on stderr (stdout keeps the result, JSON with ``--json``).
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import echo, handled_by, print_json
from lm_workbench.pretrain.spec import FAMILIES


def _families(text: str) -> list[str]:
    """``bert,gpt2`` (or one family) -> the families; an unknown one is a usage error."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in FAMILIES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown family {', '.join(unknown) or repr(text)}: choose from "
                                         f"{', '.join(FAMILIES)}")
    return names


def register(sub: Any) -> None:
    """Add ``course-models`` to the CLI's subparsers."""
    course = sub.add_parser("course-models",
                            help="pre-train tiny BERT, GPT-2, BART, T5 and ELMo models for demonstrations")
    course.add_argument("--corpus", metavar="FILE", help="a text file (default: the English text of Python's docs)")
    course.add_argument("--out", metavar="DIR", help="where to save them (default: the data folder's course-models)")
    course.add_argument("--families", nargs="+", type=_families, metavar="FAMILY",
                        help=f"only these families, comma- or space-separated ({', '.join(FAMILIES)})")
    course.add_argument("--rebuild", action="store_true",
                        help="build again the families already built at this version (default: skip them, so a "
                             "build that stopped resumes)")
    handled_by(course, cmd_course_models)


def cmd_course_models(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_course import course_models
    from lm_workbench.requests import request_of

    data = course_models(request_of(args), echo=None if args.json else echo, say=echo).to_dict()
    if args.json:
        print_json(data)
        return 0
    for r in data["models"]:
        print(f"{r['family']:<5} {r['objective']:<8} validation {r['validation_loss']:.3f} < unigram entropy "
              f"{r['unigram_entropy']:.3f}: {r['below_unigram_entropy']}; {r['elapsed_s']:.0f} s; {r['model_dir']}")
    for s in data["skipped"]:
        print(f"{s['family']:<5} already built: {s['model_dir']}")
    return 0

"""``guide``: the Guide's pages from the command line, for scripted checking and for teachers.

``lm-workbench guide list [--json] [--guide NAME]`` lists the pages in order (id, lecture, title, view, model,
exercise kind); ``guide show PAGE [--json]`` prints a page (by id or number): its text, the view settings it sets
up and its exercise (never an answer: answers are computed); ``guide check PAGE --model M --answer X [--json]``
computes the right answer on the model M (default: the page's own model) and prints::

    {"page": "next-token", "correct": false, "expected": " the", "explanation": "the model's top predictions: ...",
     "shown": "' the'", "model": "...", "hint": "...", "notes": []}

A page the model cannot answer (a family the page does not ask about, no MLM head): ``correct`` and
``expected`` null, the reason in ``explanation`` and ``notes``, exit code 2 (one line on stderr without
``--json``). ``guide progress [--json] [--csv FILE] [--reset]``: this OS user's progress, a teacher's CSV
export, or a reset. Exit 0 right, 1 wrong, 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import EXIT_OK, echo, print_json


def register(sub: Any) -> None:
    guide = sub.add_parser("guide", help="the Guide's pages: list, show, check an answer against a model")
    actions = guide.add_subparsers(dest="guide_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the guide's pages in order")
    show = actions.add_parser("show", help="one page: its text, view settings and exercise")
    show.add_argument("page", metavar="PAGE", help="a page id or number (1 is the first)")
    check = actions.add_parser("check", help="check an answer to a page's exercise against a model")
    check.add_argument("page", metavar="PAGE", help="a page id or number (1 is the first)")
    check.add_argument("--model", metavar="M", default=None,
                       help="the model to answer on (a spec, a folder, default, course:<family>); default: the page's")
    check.add_argument("--answer", metavar="X", required=True, help="the answer (a layer, layer.head, a token, "
                                                                     "an option, a number)")
    progress = actions.add_parser("progress", help="this OS user's progress; --csv exports it, --reset forgets it")
    progress.add_argument("--csv", metavar="FILE", default=None, help="write one row per page to FILE")
    progress.add_argument("--reset", action="store_true", help="forget this user's progress in the guide")
    for parser in (listing, show, check, progress):
        parser.add_argument("--guide", metavar="NAME", default=None,
                            help="a guide's name or folder (default: the built-in guide)")
        parser.add_argument("--json", action="store_true", help="print JSON")
    guide.set_defaults(handler=cmd_guide)


def cmd_guide(args: argparse.Namespace) -> int:
    handlers = {"show": cmd_show, "check": cmd_check, "progress": cmd_progress}
    return handlers.get(args.guide_action, cmd_list)(args)


def cmd_list(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_guide import guide_list
    from lm_workbench.requests import request_of

    data = guide_list(request_of(args)).to_dict()
    if args.json:
        print_json(data, indent=1)
        return EXIT_OK
    rows = data["pages"]
    echo(f"{data['title']} ({data['guide']}, {len(rows)} pages)")
    for r in rows:
        echo(f"{r['number']:>3}  L{r['lecture']}  {r['id']:<30} {r['view']:<12} {r['exercise'] or '-':<12} "
             f"{r['title']}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_guide import guide_show
    from lm_workbench.requests import request_of

    computed = guide_show(request_of(args))
    data, page = computed.to_dict(), computed.engine_result
    if args.json:
        print_json(data, indent=1)
        return EXIT_OK
    echo(f"{page.title}  (lecture {page.lecture}: {data['lecture_title']}; page id {page.id})")
    echo(f"view: {page.view}  model: {data['model']}  settings: {data['settings']}")
    echo("")
    echo(page.body)
    if page.exercise:
        echo("")
        echo(f"Exercise ({page.exercise.kind}): {page.exercise.ask}")
        for i, option in enumerate(page.exercise.options, start=1):
            echo(f"  {i}. {option.label}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    import sys

    from lm_workbench.command_results.compute_guide import guide_check
    from lm_workbench.requests import request_of

    computed = guide_check(request_of(args))
    result, spec = computed.engine_result
    if args.json:
        print_json(computed.to_dict(), indent=1)
    elif result.correct is None:
        print(f"lm-workbench: {result.explanation}", file=sys.stderr)
    else:
        echo(f"{'right' if result.correct else 'wrong'}: the answer on {spec} is {result.shown}")
        echo(f"why: {result.explanation}")
    return computed.exit_code


def cmd_progress(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_guide import guide_progress
    from lm_workbench.requests import request_of

    data = guide_progress(request_of(args)).to_dict()
    if args.json:
        print_json(data, indent=1)
    elif "reset" in data:
        echo(f"forgot {data['user']}'s progress in {data['guide']}")
    elif "csv" in data:
        echo(f"wrote {data['rows']} rows to {data['csv']}")
    else:
        for r in data["pages"]:
            mark = "right" if r["answered"] else ("tried" if r["attempts"] else "-")
            echo(f"{r['number']:>3}  {r['page']:<30} {mark:<6} attempts {r['attempts']:<3} {r['seconds']:>7.0f} s"
                 + ("  (page changed since)" if r["changed"] else ""))
    return EXIT_OK

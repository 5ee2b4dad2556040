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

from lm_workbench.cli.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, echo, print_json


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


def _guide(args: argparse.Namespace) -> Any:
    from lm_workbench.guide.library import find_guide

    return find_guide(args.guide)  # a GuideError (bad page: file and line): one line, exit 2


def cmd_list(args: argparse.Namespace) -> int:
    guide = _guide(args)
    rows = [{"number": i, "id": p.id, "lecture": p.lecture, "title": p.title, "view": p.view,
             "model": p.model if isinstance(p.model, str) else list(p.model),
             "exercise": p.exercise.kind if p.exercise else None} for i, p in enumerate(guide.pages, start=1)]
    if args.json:
        print_json({"guide": guide.name, "title": guide.title, "pages": rows}, indent=1)
        return EXIT_OK
    echo(f"{guide.title} ({guide.name}, {len(rows)} pages)")
    for r in rows:
        echo(f"{r['number']:>3}  L{r['lecture']}  {r['id']:<30} {r['view']:<12} {r['exercise'] or '-':<12} "
             f"{r['title']}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    page = _guide(args).page(args.page)
    data = page.to_json()
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

    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.guide.check import check_answer, page_model
    from lm_workbench.lectures.availability import installed_course_models, resolve_model
    from lm_workbench.lectures.verify import ModelCache
    from lm_workbench.settings import load_settings

    page = _guide(args).page(args.page)
    if page.exercise is None:
        raise WorkbenchError(f"the page {page.id!r} has no exercise")
    course, default = installed_course_models(), load_settings().default_model
    spec = resolve_model(args.model, default, course) if args.model else page_model(page, course, default)
    result = check_answer(page, args.answer, spec, ModelCache(), course_models=course)
    if args.json:
        print_json(result.to_json(), indent=1)
    elif result.correct is None:
        print(f"lm-workbench: {result.explanation}", file=sys.stderr)
    else:
        echo(f"{'right' if result.correct else 'wrong'}: the answer on {spec} is {result.shown}")
        echo(f"why: {result.explanation}")
    if result.correct is None:
        return EXIT_USAGE
    return EXIT_OK if result.correct else EXIT_FAILURE


def cmd_progress(args: argparse.Namespace) -> int:
    from lm_workbench.guide.progress import Progress

    guide, progress = _guide(args), Progress()
    if args.reset:
        progress.reset(guide.name)
        echo(f"forgot {progress.user}'s progress in {guide.name}")
        return EXIT_OK
    if args.csv:
        path = progress.export_csv(guide, args.csv)
        echo(f"wrote {len(guide.pages)} rows to {path}")
        return EXIT_OK
    rows = progress.rows(guide)
    if args.json:
        print_json({"user": progress.user, "guide": guide.name, "pages": rows}, indent=1)
        return EXIT_OK
    for r in rows:
        mark = "right" if r["answered"] else ("tried" if r["attempts"] else "-")
        echo(f"{r['number']:>3}  {r['page']:<30} {mark:<6} attempts {r['attempts']:<3} {r['seconds']:>7.0f} s"
             + ("  (page changed since)" if r["changed"] else ""))
    return EXIT_OK

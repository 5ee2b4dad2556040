"""What every ``*_commands`` module shares: the parser class, option groups, output and errors.

The CLI's one pattern (see ``lm_workbench.cli.parser``): each ``*_commands``
module has ``register(subparsers)``, which adds its parsers and binds each to
its handler with ``set_defaults(handler=...)``; a handler takes the parsed
arguments and returns an exit code. Command modules import only this module
(never each other), and import anything heavy inside their handlers, so
building the parser stays cheap.

Errors: a ``WorkbenchError`` or bad usage prints one line on stderr
(``lm-workbench: error: ...``) and exits with code 2, never a traceback
(``run_reporting_errors``). A fault of the machine (``MachineFault``, and any
``OSError``, ``sqlite3.Error``, safetensors or tokenizers error: a full disk,
a read-only folder, a vanished file, a damaged store) prints one line naming
the file and what to do, and exits 1; so does a bug ("unexpected error"). The
traceback of both goes to the log file (``lm_workbench.logs``), which the line
names. ``LM_WORKBENCH_DEBUG=1`` lets the traceback through instead.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import logging
import os
import sys
import time
from typing import Any, Callable, Iterator, NoReturn, TextIO

from lm_workbench.command_results.checks import (  # noqa: F401 - shared with the Python API; the CLI's names
    note, note_window, output_file, positive_k, write_or_fail,
)
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.command_results.options import settings_for  # noqa: F401 - the CLI's name
from lm_workbench.command_results.results import EXIT_INTERRUPTED
from lm_workbench.frontends import FRONTENDS_GROUP, frontend_attribute  # noqa: F401 - the CLI's names

PROG = "lm-workbench"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
DEBUG_ENV = "LM_WORKBENCH_DEBUG"  # set: a fault's or a bug's traceback is printed, not only logged

log = logging.getLogger(__name__)

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports bad usage in one line instead of usage + message."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


# -- errors and exit codes ---------------------------------------------------------------------------------------

def print_error(message: str) -> None:
    """``lm-workbench: error: <message>`` on stderr, on one line."""
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)


def print_warning(message: str) -> None:
    """``lm-workbench: warning: <message>`` on stderr, on one line (a notice: ``lm_workbench.notices``)."""
    print(f"{PROG}: warning: {' '.join(str(message).split())}", file=sys.stderr, flush=True)


def run_reporting_errors(func: Callable[..., int], *args: Any) -> int:
    """``func(*args)``'s exit code. A user error prints one line and gives 2; a fault of the machine or a bug
    prints one line (naming the log file that has the traceback) and gives 1; Ctrl-C gives 130."""
    try:
        return func(*args)
    except UsageError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print_error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (``... --json | head``): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit would raise again
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - no traceback reaches the user: one line, the rest in the log
        from lm_workbench.engine.errors import MachineFault
        from lm_workbench.faults import exit_code, user_line

        if not isinstance(exc, WorkbenchError) or isinstance(exc, MachineFault):
            log.error("%s failed", PROG, exc_info=exc)
            if os.environ.get(DEBUG_ENV):
                raise
        print_error(user_line(exc))
        return exit_code(exc)


def drive_job(steps: Any, quiet: bool = False) -> Any:
    """Run a job generator to its end and return its result; its progress messages go to stderr unless
    ``quiet`` (partial results, meant for a window, are passed over; the Python API's bar sees the progress)."""
    from lm_workbench.command_results.driving import drive_quietly

    return drive_quietly(steps, quiet=quiet)


# -- output ------------------------------------------------------------------------------------------------------
# (the argument checks --k and --out, and note/note_window: lm_workbench.command_results.checks, imported above)

# The Python API (``lm_workbench.api``) computes a command in-process on the model it already holds
# (``using_loaded``).
_PRELOADED: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar("preloaded", default=None)


def print_json(data: Any, *, indent: int | None = None) -> None:
    """``data`` as JSON on stdout (values JSON cannot hold are written as text)."""
    print(json.dumps(data, indent=indent, default=str))


@contextlib.contextmanager
def using_loaded(spec: str | None, loaded: Any) -> Iterator[None]:
    """Within the block, ``load_for`` returns ``loaded`` for the spec ``spec`` instead of loading it again."""
    token = _PRELOADED.set((spec, loaded) if loaded is not None else None)
    try:
        yield
    finally:
        _PRELOADED.reset(token)


def echo(line: str) -> None:
    """A progress line on stderr, flushed at once (stdout stays for the result)."""
    print(line, file=sys.stderr, flush=True)


# -- models ------------------------------------------------------------------------------------------------------

def add_model_options(p: argparse.ArgumentParser) -> None:
    """The positional MODEL and the options that say how to load it."""
    p.add_argument("model", help="a model folder, a hub id (org/name) or 'minilm' (the built-in default)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where to run (default: settings, auto)")
    p.add_argument("--precision", choices=["auto", "float32", "bfloat16", "float16"],
                   help="weights' number format (default: settings, auto)")
    p.add_argument("--threads", type=int, help="CPU threads (default: settings, all cores)")
    p.add_argument("--words", choices=["as-given", "split"],
                   help="an ELMo's words: 'as-given' takes the whitespace-separated words as typed (U.S. stays one "
                        "word), 'split' splits off punctuation (U . S .); default: the model's setting, else as-given "
                        "for a published AllenNLP ELMo and split for one the workbench trained; other models "
                        "ignore it")
    add_source_options(p, pickle=True)


def handled_by(p: argparse.ArgumentParser, handler: Callable[[argparse.Namespace], int], *,
               json_help: str = "print JSON") -> None:
    """End a command's parser: its ``--json`` switch (``json_help`` says what it prints) and the handler the
    command runs (``main`` calls ``args.handler(args)``)."""
    p.add_argument("--json", action="store_true", help=json_help)
    p.set_defaults(handler=handler)


def add_source_options(p: argparse.ArgumentParser, *, pickle: bool = False) -> None:
    """``--offline`` and ``--trust-remote-code`` (and ``--allow-pickle``): where a model may come from."""
    p.add_argument("--offline", action="store_true", default=None, help="never contact the hub")
    if pickle:
        p.add_argument("--allow-pickle", action="store_true", default=None,
                       help="allow pickle (.bin) weights; only for sources you trust")
    p.add_argument("--trust-remote-code", action="store_true", default=None,
                   help="let the model folder run its own code; only for sources you trust")


def load_for(args: Any) -> Any:
    """The ``LoadedModel`` that ``args.model`` names, through the one loader (as the window loads it); ``args``
    is the parsed command line or its typed request."""
    from lm_workbench.models.loader import load_model

    preloaded = _PRELOADED.get()
    if preloaded is not None and preloaded[0] == args.model:  # the Python API's model: already loaded
        settings_for(args)  # threads and offline mode as a load would set them
        return preloaded[1]
    return load_model(args.model, settings=settings_for(args))


def on_model(args: argparse.Namespace, compute: Callable[..., Any], request: Any = None, **options: Any) -> Any:
    """``compute`` (a command's function in ``lm_workbench.command_results``) on the request this command line
    makes (or ``request``, already checked) and the model it names. With --json the result is printed and None
    returned; else the result, for the handler to print its table."""
    from lm_workbench.requests import request_of

    result = compute(request_of(args) if request is None else request, load_for(args), **options)
    if args.json:
        print_json(result.to_dict())
        return None
    return result


def evaluated(run: Any, args: argparse.Namespace, compute: Callable[..., Any]) -> Any:
    """A recorded evaluation: ``run``'s files read (a bad file fails before the model loads; what was read said
    unless --json), the model ``args`` name loaded, then ``compute`` (its function in
    ``lm_workbench.command_results.compute_evaluations``, which executes and records the run). With --json the
    result is printed and None returned; else the result, for the handler to print its table."""
    from lm_workbench.requests import request_of

    inputs = run.read()
    say_read(getattr(inputs, "report", None), args)
    result = compute(request_of(args), load_for(args), run=run, inputs=inputs, quiet=args.json)
    if args.json:
        print_json(result.to_dict())
        return None
    return result


def add_tsv_quoting_option(p: argparse.ArgumentParser, default: str | None = "auto") -> None:
    """``--tsv-quoting auto|literal|csv``: how a .tsv file's quotes are read (``lm_workbench.engine.data.tsv_quoting``;
    the same for every command that reads a table). ``default`` None lets a command tell "not given" (``finetune
    --resume``)."""
    from lm_workbench.engine.data.tsv_quoting import TSV_QUOTINGS

    p.add_argument("--tsv-quoting", choices=TSV_QUOTINGS, default=default,
                   help="how a .tsv file's quotes are read: literal (quotes are text, as in GLUE's files), csv "
                        "(quoted fields with doubled quotes, as pandas, Excel and Python's csv module write) or auto "
                        "(decided once per file from its quoted fields; the read note says which and why; default)")


def add_task_column_options(p: argparse.ArgumentParser) -> None:
    """--tag-column (token tasks) and --text-column / --label-column (sentence tasks) of a probing task file, and
    --tsv-quoting."""
    p.add_argument("--tag-column", type=int, metavar="N",
                   help="token tasks: the tag's column, counted from 1 (default: the last column of a CoNLL "
                        "file, UPOS (4) of CoNLL-U; CoNLL-2003: 2 POS, 3 chunk, 4 NER)")
    p.add_argument("--text-column", metavar="NAME", help="sentence tasks: the text column (default text or sentence)")
    p.add_argument("--label-column", metavar="NAME", help="sentence tasks: the label column (default label)")
    add_tsv_quoting_option(p)


def task_columns(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ProbeSpec`` keywords of ``add_task_column_options``."""
    return {"tag_column": args.tag_column, "text_column": args.text_column, "label_column": args.label_column,
            "tsv_quoting": args.tsv_quoting}


def say_read(report: Any, args: argparse.Namespace) -> None:
    """``note: read N rows, skipped K (first: line L: reason)`` on stderr: always when rows were skipped or
    changed, else unless the command prints --json. ``report`` is a data reader's ``ReadReport`` (or None)."""
    from lm_workbench.command_results.checks import say_read_report

    say_read_report(report, bool(getattr(args, "json", False)))


# -- progress on stderr (downloads) ------------------------------------------------------------------------------
# A one-line bar redrawn in place, ended with a newline; shown when stderr is a terminal and the command does
# not print --json, unless --progress asks for it anyway (then one line per redraw, so a log stays readable).

PROGRESS_BAR_WIDTH = 24  # characters of the download bar itself


def wants_progress(args: Any, stream: TextIO | None = None) -> bool:
    """Whether a command run with ``args`` shows progress on ``stream`` (stderr)."""
    stream = stream or sys.stderr
    if getattr(args, "progress", False):
        return True
    return not getattr(args, "json", False) and bool(getattr(stream, "isatty", lambda: False)())


class StderrProgress:
    """Call it with the job's ``Progress`` events; ``close()`` ends the line."""

    def __init__(self, stream: TextIO | None = None, *, every_s: float = 0.2):
        self.stream = stream or sys.stderr
        self.in_place = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every_s = every_s
        self._last = 0.0
        self._drawn = False

    def __call__(self, event: Any) -> None:
        from lm_workbench.engine.progress import Progress

        if not isinstance(event, Progress) or not event.message:
            return
        now = time.monotonic()
        final = event.total > 0 and event.done >= event.total
        if not final and now - self._last < self.every_s and self._drawn:
            return
        self._last = now
        line = event.message
        if event.total > 0:
            filled = int(PROGRESS_BAR_WIDTH * min(1.0, event.done / event.total))
            line = f"[{'#' * filled}{'.' * (PROGRESS_BAR_WIDTH - filled)}] {100 * event.fraction:5.1f}% {line}"
        if self.in_place:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn and self.in_place:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False

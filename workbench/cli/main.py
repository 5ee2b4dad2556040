"""The ``lm-workbench`` command: the GUI with no command, headless commands otherwise.

One path for every command: parse with ``build_parser`` (every module in
``COMMAND_MODULES``), then call the handler the chosen command bound.
User errors (``WorkbenchError``, bad usage) print one line on stderr and exit
with code 2, never a traceback; faults of the machine and bugs print one line
and exit with 1 (the traceback goes to the log file, ``lm_workbench.logs``);
Ctrl-C exits with 130. Notices (a damaged run store set aside, a store opened
read-only: ``lm_workbench.notices``) are printed on stderr as warnings.
"""

from __future__ import annotations

import sys
from typing import Sequence

from lm_workbench.cli.common import EXIT_OK, PROG, print_warning, run_reporting_errors
from lm_workbench.cli.parser import build_parser

DEFAULT_COMMAND = "gui"  # what no command means


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from lm_workbench.logs import detach_console, setup_logging
    from lm_workbench.notices import set_notice_handler

    setup_logging(console=True)
    set_notice_handler(print_warning)
    try:
        return run_reporting_errors(_run, argv or [DEFAULT_COMMAND])
    finally:
        set_notice_handler(None)
        detach_console()


def _run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"{PROG} {version('lm-workbench')}")
        return EXIT_OK
    if args.self_test is not None:
        from lm_workbench.self_test import run_self_test

        return run_self_test(args.self_test)
    if args.command is None:  # options but no command
        args = parser.parse_args([DEFAULT_COMMAND])
    return args.handler(args)


def entry() -> None:
    """Console-script entry point."""
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen bundle's spawned children start here
    sys.exit(main())

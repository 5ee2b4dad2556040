"""The ``lm-workbench`` command: the GUI with no command, headless commands otherwise.

User errors (``WorkbenchError``, bad usage) print one line on stderr and exit
with code 2, never a traceback. The GUI is found through the
``lm_workbench.frontends`` entry point, so this core package never imports
the Qt layer.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points, version
from typing import Sequence

from workbench.cli.parser import PROG, UsageError, build_parser, print_error

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def open_gui(model: str | None = None) -> int:
    found = [ep for ep in entry_points(group="lm_workbench.frontends") if ep.name == "gui"]
    if not found:
        print_error("the window is not installed (no 'lm_workbench.frontends' entry point named gui); "
                    "reinstall lm-workbench")
        return EXIT_FAILURE
    run = found[0].load()
    return int(run([model] if model else []) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return open_gui()
    from engine.errors import WorkbenchError

    try:
        args = build_parser().parse_args(argv)
        if args.version:
            print(f"{PROG} {version('lm-workbench')}")
            return EXIT_OK
        if args.self_test is not None:
            from workbench.self_test import run_self_test

            return run_self_test(args.self_test)
        if args.command in (None, "gui"):
            return open_gui(getattr(args, "model", None))
        from workbench.cli import commands, pretrain_commands

        if args.command in pretrain_commands.COMMANDS:
            return pretrain_commands.COMMANDS[args.command](args)
        from workbench.cli import embedding_commands

        if args.command in embedding_commands.COMMANDS:
            return embedding_commands.COMMANDS[args.command](args)
        return commands.run(args)
    except UsageError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except WorkbenchError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130


def entry() -> None:
    """Console-script entry point."""
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen bundle's spawned children start here
    sys.exit(main())

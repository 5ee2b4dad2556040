"""``gui``: open the window (what ``lm-workbench`` with no command does).

The window is found through the ``lm_workbench.frontends`` entry point named
``gui``, so this core package never imports the Qt layer.
"""

from __future__ import annotations

import argparse
from importlib.metadata import entry_points
from typing import Any

from lm_workbench.cli.common import EXIT_FAILURE, FRONTENDS_GROUP, print_error

__all__ = ["FRONTENDS_GROUP", "open_gui", "register"]


def register(sub: Any) -> None:
    """Add ``gui`` to the CLI's subparsers."""
    gui = sub.add_parser("gui", help="open the window (the default with no command)")
    gui.add_argument("model", nargs="?", help="model to open instead of the default")
    gui.set_defaults(handler=cmd_gui)


def cmd_gui(args: argparse.Namespace) -> int:
    return open_gui(args.model)


def open_gui(model: str | None = None) -> int:
    """Run the installed window until it closes; its exit code."""
    found = [ep for ep in entry_points(group=FRONTENDS_GROUP) if ep.name == "gui"]
    if not found:
        print_error(f"the window is not installed (no '{FRONTENDS_GROUP}' entry point named gui); "
                    "reinstall lm-workbench")
        return EXIT_FAILURE
    run = found[0].load()
    return int(run([model] if model else []) or 0)

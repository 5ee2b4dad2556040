"""The CLI's commands as its parser has them: each leaf parser by the command as typed (``"presets verify"``)."""

from __future__ import annotations

import argparse
from typing import Iterator


def leaves(parser: argparse.ArgumentParser,
           prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command as typed, its parser) for every command under ``parser``, depth first."""
    sub = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not sub:
        yield " ".join(prefix), parser
        return
    for name, child in sub[0].choices.items():
        yield from leaves(child, prefix + (name,))


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command of a freshly built ``lm-workbench`` parser, by name."""
    from lm_workbench.cli.parser import build_parser

    return dict(leaves(build_parser()))

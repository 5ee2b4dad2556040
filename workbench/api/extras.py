"""API calls that are not a command's request: ``self_test`` (``lm-workbench --self-test``)."""

from __future__ import annotations

import contextlib
import io
from typing import Any


def self_test(model: str = "minilm") -> Any:
    """``lm-workbench --self-test MODEL``: load the model, encode a sentence, list plugins, write and read a
    run. A result with ``ok`` (bool), ``exit_code`` and ``lines`` (what the CLI prints)."""
    from lm_workbench.command_results.results import result_for
    from lm_workbench.self_test import run_self_test

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = run_self_test(model)
    return result_for("self-test", {"ok": code == 0, "exit_code": code, "lines": printed.getvalue().splitlines()},
                      exit_code=code)

"""``lm-workbench --self-test [MODEL]``: prove an install works, one step at a time, without a window.

Steps: list the versions of the packages it stands on (a warning line for a
release known to break a feature: ``lm_workbench.versions``; a warning does not fail
it), read the settings (and set offline mode from them, before the hub client
is imported), load the model (the built-in default unless MODEL names another),
encode a sentence, list the objective plugins (the built-in ones must load), and
write a run to the user's run store, read it back and delete it again. Each step
prints one line; the first that fails prints ``self-test: FAILED at <step>: <why>``
on stderr and the exit code is 1. Packaged builds run it (packaging/smoke_test.sh).

With ``LM_WORKBENCH_SELF_TEST_MODULES=FILE`` the files of every loaded Python
module are written to FILE as JSON ({module: file}), so a packaged build can check
that nothing came from outside the bundle.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable

SENTENCE = "The teacher opened the workbench on the projector."
BUILT_IN_OBJECTIVES = ("bart", "clm", "distillation", "mlm", "spanbert", "t5-span")
MODULES_ENV = "LM_WORKBENCH_SELF_TEST_MODULES"
EXIT_OK, EXIT_FAILED = 0, 1


class SelfTestFailed(Exception):
    """A step found something wrong (its message says what)."""


def _settings(state: dict[str, Any]) -> str:
    from lm_workbench.models.network import apply_offline_mode
    from lm_workbench.paths import config_dir
    from lm_workbench.settings import load_settings

    state["settings"] = settings = load_settings()
    offline = apply_offline_mode(settings.offline)
    return f"{config_dir()} (offline mode {'on' if offline else 'off'})"


def _load(state: dict[str, Any]) -> str:
    from lm_workbench.models.loader import load_model

    state["loaded"] = loaded = load_model(state["model"], settings=state["settings"])
    info = loaded.info
    return f"{state['model']}: {info.model_type}, {info.layers} layers, {info.parameters / 1e6:.1f}M parameters"


def _encode(state: dict[str, Any]) -> str:
    import numpy as np

    from lm_workbench.engine.analysis import encode

    info = state["loaded"].info
    result = encode(state["loaded"], SENTENCE, attentions=True)
    hidden = result.hidden_states
    tokens = len(result.tokenized)
    if hidden.shape != (info.layers + 1, tokens, info.hidden_size):
        raise SelfTestFailed(f"hidden states have shape {hidden.shape}, expected "
                             f"({info.layers + 1}, {tokens}, {info.hidden_size})")
    if not np.isfinite(hidden).all():
        raise SelfTestFailed("hidden states hold NaN or infinity")
    return f"{tokens} tokens -> hidden states {tuple(hidden.shape)}"


def _plugins(state: dict[str, Any]) -> str:
    from lm_workbench.extensions.registry import ObjectiveRegistry

    registry = ObjectiveRegistry.discover(state["settings"])
    working = set(registry.names())
    missing = [name for name in BUILT_IN_OBJECTIVES if name not in working]
    if missing:
        errors = {r.name: r.error for r in registry.records if r.name in missing and r.error}
        raise SelfTestFailed(f"built-in objectives missing or broken: {', '.join(missing)}"
                             + (f" ({errors})" if errors else ""))
    listed = ", ".join(f"{r.name} [{r.source}, {r.status}]" if r.source != "entry-point" else r.name
                       for r in registry.records)
    return f"{len(registry.records)} found: {listed}"


def _run_store(state: dict[str, Any]) -> str:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    from lm_workbench.runs.run_context import create_queued_run

    path = runs_db_path()
    with RunStore(path) as store:
        run_id = create_queued_run(store, "self-test", name="self-test", model=state["model"],
                                   params={"sentence": SENTENCE}, pid=os.getpid())
        store.start_run(run_id, pid=os.getpid())
        store.log_metrics(run_id, 0, {"check": 1.0})
        store.finish_run(run_id)
        row = store.get_run(run_id)
        values = [m["value"] for m in store.metrics(run_id, "check")]
        store.delete_run(run_id)
    if row["status"] != "finished" or row["params"] != {"sentence": SENTENCE} or values != [1.0]:
        raise SelfTestFailed(f"read back {row['status']!r}, {row['params']!r}, {values!r}")
    return f"wrote and read back run #{run_id} in {path}"


def _versions(state: dict[str, Any]) -> str:
    """The versions found (one line) and a warning line for each release known to break a feature; a known
    break does not fail the self-test (the features it breaks refuse when they start)."""
    from lm_workbench.versions import breaks_in_force, found_versions

    found = found_versions()
    for entry, version in breaks_in_force():
        state.setdefault("warnings", []).append(f"self-test: WARNING: {entry.message(version)}")
    return ", ".join(f"{name} {version or 'not found'}" for name, version in found.items())


STEPS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("versions", _versions),
    ("settings", _settings),
    ("load the model", _load),
    ("encode a sentence", _encode),
    ("list plugins", _plugins),
    ("run store", _run_store),
)


def _write_module_files(target: str) -> None:
    files = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
    with open(target, "w", encoding="utf-8") as fh:
        json.dump({name: path for name, path in files.items() if isinstance(path, str)}, fh, indent=1, sort_keys=True)


def run_self_test(model: str = "minilm", echo: Callable[[str], None] = print) -> int:
    """Run every step in order; 0 when all pass, 1 at the first that fails (named on stderr)."""
    state: dict[str, Any] = {"model": model}
    for name, step in STEPS:
        start = time.monotonic()
        try:
            detail = step(state)
        except Exception as exc:  # any failure is the step's; name it and stop
            from lm_workbench.faults import describe

            text = " ".join((describe(exc) or str(exc)).split()) or type(exc).__name__
            print(f"self-test: FAILED at {name}: {text}", file=sys.stderr)
            return EXIT_FAILED
        echo(f"self-test: {name} ok ({time.monotonic() - start:.1f} s): {detail}")
        for warning in state.pop("warnings", []):
            echo(warning)
    target = os.environ.get(MODULES_ENV, "").strip()
    if target:
        _write_module_files(target)
    echo("self-test: passed")
    return EXIT_OK


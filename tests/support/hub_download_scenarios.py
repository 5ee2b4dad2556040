"""Run by tests/models/test_hub_download.py in a child process (not a test module): the download scenarios.

The child has ``HF_ENDPOINT`` pointing at the test's ``HubServer`` and a fresh ``HF_HOME``, and no offline
switch (``huggingface_hub`` reads those at import, hence a process of its own). Each scenario records what
a user would see (events, the one-line error, the files in the cache) as JSON on stdout; the test asserts.
argv: nothing. Repositories served: course/tiny (plain), course/slow (slow chunks), course/flaky (its weights'
first response is cut), course/gated, course/pickled (pytorch_model.bin only).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import threading
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress


def events_of(gen: Any) -> tuple[list[Any], Any]:
    events = []
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            return events, stop.value


def error_line(call: Any) -> str | None:
    try:
        call()
    except WorkbenchError as exc:
        return str(exc)
    return None


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def incomplete_sizes(repo_id: str) -> list[int]:
    from huggingface_hub import constants

    blobs = Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}" / "blobs"
    return sorted(p.stat().st_size for p in blobs.glob("*.incomplete")) if blobs.is_dir() else []


def main() -> None:
    from lm_workbench.engine.models.download import DownloadPlan, download_job
    from lm_workbench.engine.models.sources import cached_snapshot
    from lm_workbench.cli.main import main as cli
    from lm_workbench.models.loader import load_model_job
    from lm_workbench.settings import Settings

    out: dict[str, Any] = {}

    # 1. a plain download through the window's load job: the plan first, then bytes, then the model loads
    out["cached_before"] = cached_snapshot("course/tiny") is not None
    events, loaded = events_of(load_model_job("course/tiny", Settings(), CancelToken()))
    progress = [e for e in events if isinstance(e, Progress)]
    out["load"] = {"messages": [e.message for e in progress], "done": [e.done for e in progress],
                   "totals": sorted({e.total for e in progress}), "family": loaded.info.family,
                   "source": loaded.info.source, "cached_after": cached_snapshot("course/tiny") is not None}

    # 2. cancel mid-file: nothing in the cache looks complete; the next try resumes with a Range request
    token = CancelToken()
    gen = download_job("course/slow", cancel=token, report_every_s=0.05)
    cancelled_at = None
    try:
        for event in gen:
            if isinstance(event, Progress) and event.done > 0 and not token.cancelled:
                cancelled_at = event.done
                token.cancel()
        out["cancel"] = {"error": "not cancelled"}
    except Cancelled:
        out["cancel"] = {"cancelled_at": cancelled_at, "snapshot": cached_snapshot("course/slow") is not None,
                         "incomplete": incomplete_sizes("course/slow")}
    events, folder = events_of(download_job("course/slow"))
    out["cancel"]["resumed_folder"] = str(folder)
    out["cancel"]["sha"] = {p.name: sha(p) for p in sorted(Path(folder).iterdir())}
    out["cancel"]["incomplete_after"] = incomplete_sizes("course/slow")

    # 3. a connection dropped mid-file: the hub client asks for the rest itself
    events, folder = events_of(download_job("course/flaky"))
    out["flaky"] = {"sha": {p.name: sha(p) for p in sorted(Path(folder).iterdir())},
                    "plan_bytes": next(e for e in events if isinstance(e, DownloadPlan)).total_bytes,
                    "last_done": [e for e in events if isinstance(e, Progress)][-1].done}

    # 4. one line for each way it can fail
    out["errors"] = {
        "missing": error_line(lambda: events_of(download_job("course/nope"))),
        "gated": error_line(lambda: events_of(download_job("course/gated"))),
        "revision": error_line(lambda: events_of(download_job("course/tiny", revision="v9.9"))),
        "pickle": error_line(lambda: events_of(download_job("course/pickled"))),
    }

    # 5. the CLI: download --json names the snapshot that load_model then opens offline
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli(["download", "course/flaky", "--json"])
    out["cli"] = {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli(["download", "course/nope"])
    out["cli_missing"] = {"code": code, "stderr": stderr.getvalue()}
    out["threads"] = [t.name for t in threading.enumerate() if t.name.startswith("download ")]
    print(json.dumps(out))


if __name__ == "__main__":
    main()

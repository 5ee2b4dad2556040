"""Downloading a model from the Hugging Face hub that a user can watch, stop and resume.

``download_job(repo_id)`` is a job generator: it asks the hub for the
repository's file list with sizes, chooses what to fetch (the config and
tokenizer files plus safetensors weights; pickle weights only when the user
allows them), yields a ``DownloadPlan`` (files, total bytes) before any byte
is fetched, refuses up front when the cache's disk has too little room, then
fetches file by file (``fetch_file``: the hub client's metadata request and
session, into the hub cache's own layout) and yields ``Progress`` in
bytes (files done, MB of total, rate). It returns the snapshot folder.

Cancel is checked at every chunk read: the partly fetched file stays as
``blobs/<etag>.incomplete``, and the next try asks for the rest with an HTTP
``Range`` request; a dropped connection is asked again from where it stopped
within the same try (``stream_into``). ``hf_hub_download`` is not used for the
bytes: it deletes a partial file when a try fails, and reports progress per
10 MB. ``config.json`` is fetched last, so a snapshot
folder with a config always has its weights: a cancelled download never
leaves a cache entry that looks complete (``snapshot_is_complete``).

Errors are one line that says what to do: repository not found, gated,
revision not found, no network, disk full.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.errors import Cancelled, ModelFormatError, ModelNotFoundError, WorkbenchError
from lm_workbench.engine.models.memory import format_bytes
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

# Files a model folder needs besides its weights (a tokenizer's vocabulary, merges, special tokens).
METADATA_SUFFIXES = (".json", ".txt", ".model")
METADATA_PREFIXES = ("tokenizer", "vocab", "merges", "special_tokens", "spiece", "sentencepiece")
SAFETENSORS_SUFFIXES = (".safetensors", ".safetensors.index.json")
PICKLE_PREFIX = "pytorch_model"
SPACE_MARGIN = 1.05  # room asked for beyond the files' own bytes (the cache's links and refs)
RETRIES = 5  # tries in a row without a byte before a dropped download gives up
READ_TIMEOUT_S = 30.0


class HubDownloadError(ModelNotFoundError):
    """A download that cannot start or finish, explained in one line."""


@dataclass(frozen=True)
class DownloadPlan:
    """What a download will fetch, known before any byte is: the files and their sizes."""

    repo_id: str
    revision: str  # what the user asked for ("main" when nothing)
    commit: str  # the commit it points to now: every file is fetched from this one
    files: tuple[tuple[str, int], ...]  # (path in the repository, bytes), in download order
    skipped: tuple[str, ...]  # files of the repository that are not fetched (other weight formats, images, ...)

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.files)

    def describe(self) -> str:
        return (f"{self.repo_id}: {len(self.files)} files, {format_bytes(self.total_bytes)} to fetch"
                + (f" ({len(self.skipped)} other files skipped)" if self.skipped else ""))


def _is_metadata(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    if "/" in name:  # only the repository's top folder is a model folder
        return False
    if base.endswith(SAFETENSORS_SUFFIXES) or base.startswith(PICKLE_PREFIX):
        return False
    return base.endswith(METADATA_SUFFIXES) or base.startswith(METADATA_PREFIXES)


def choose_files(repo_id: str, files: dict[str, int], *, allow_pickle: bool) -> tuple[list[tuple[str, int]],
                                                                                      list[str]]:
    """(files to fetch in order, files skipped): metadata, then safetensors (or pickle weights when allowed and
    there is no safetensors), ``config.json`` last. Refuses a repository with no weights this run may read."""
    top = {name: size for name, size in files.items() if "/" not in name}
    if "config.json" not in top:
        raise ModelFormatError(f"{repo_id} has no config.json at its top: it is not a transformers model")
    weights = [n for n in top if n.endswith(SAFETENSORS_SUFFIXES)]
    if not weights:
        pickles = [n for n in top if n.startswith(PICKLE_PREFIX) and n.endswith((".bin", ".bin.index.json"))]
        if not pickles:
            raise ModelFormatError(f"{repo_id} has no weights this workbench reads (*.safetensors)")
        if not allow_pickle:
            raise ModelFormatError(
                f"{repo_id} has only pickle weights (pytorch_model.bin); allow pickle weights in the settings "
                "(or --allow-pickle) only if you trust its author")
        weights = pickles
    metadata = [n for n in top if _is_metadata(n) and n != "config.json"]
    chosen = sorted(weights, key=lambda n: (n.endswith(".json"), n)) + sorted(metadata) + ["config.json"]
    chosen = list(dict.fromkeys(chosen))
    skipped = sorted(set(files) - set(chosen))
    return [(name, int(files[name])) for name in chosen], skipped


# -- talking to the hub ----------------------------------------------------------------------------------------------

def _explain(exc: BaseException, repo_id: str, revision: str | None) -> WorkbenchError:
    """One line for what the hub client raised."""
    from huggingface_hub import errors as hub

    if isinstance(exc, hub.GatedRepoError):
        return HubDownloadError(
            f"{repo_id} is gated: accept its licence on its hub page (huggingface.co/{repo_id}) with your account, "
            "then log in here: set HF_TOKEN or run 'hf auth login'")
    if isinstance(exc, hub.RevisionNotFoundError):
        return HubDownloadError(f"{repo_id} has no revision {revision!r}: use a branch, tag or commit hash its hub "
                                "page lists, or leave --revision out for the main branch")
    if isinstance(exc, hub.RepositoryNotFoundError):
        return HubDownloadError(f"{repo_id!r} is not on the hub (or is private): check the id, spelled as on "
                                "its page, e.g. 'bert-base-uncased' or 'org/name'; for a private model log in "
                                "(HF_TOKEN or 'hf auth login')")
    if isinstance(exc, hub.EntryNotFoundError):
        return HubDownloadError(f"{repo_id}: a file it lists is missing on the hub ({_first_line(exc)}); try again "
                                "later or another revision")
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return HubDownloadError(f"the disk filled up while downloading {repo_id} into {_cache()}: free some space "
                                "(or set HF_HOME to a larger disk) and try again; the download resumes")
    if isinstance(exc, hub.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status in (401, 403):
            return HubDownloadError(f"the hub refused {repo_id} ({status}): log in with an account that may read "
                                    "it (HF_TOKEN or 'hf auth login')")
        return HubDownloadError(f"the hub answered an error for {repo_id}: {_first_line(exc)}")
    if _is_network_error(exc):
        return HubDownloadError(f"the hub cannot be reached ({_first_line(exc)}): check the network, or use a "
                                "model already in the cache or a local folder")
    return HubDownloadError(f"could not download {repo_id}: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _is_network_error(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"ConnectError", "ConnectTimeout", "TimeoutException", "RemoteProtocolError", "NetworkError",
                         "ConnectionError", "TransportError", "OfflineModeIsEnabled"})


def _cache() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def list_repo_sizes(repo_id: str, revision: str | None = None) -> tuple[str, dict[str, int]]:
    """(the commit the revision points to, {file: bytes}) from the hub's file list."""
    from huggingface_hub import HfApi

    try:
        info = HfApi().model_info(repo_id, revision=revision, files_metadata=True)
    except Exception as exc:  # the hub client's errors, httpx's, OSError
        raise _explain(exc, repo_id, revision) from None
    files = {s.rfilename: int(s.size or 0) for s in (info.siblings or [])}
    return str(info.sha or revision or "main"), files


def plan_download(repo_id: str, revision: str | None = None, *, allow_pickle: bool = False) -> DownloadPlan:
    """What ``download_job`` would fetch (a request to the hub, no download)."""
    commit, files = list_repo_sizes(repo_id, revision)
    chosen, skipped = choose_files(repo_id, files, allow_pickle=allow_pickle)
    return DownloadPlan(repo_id, revision or "main", commit, tuple(chosen), tuple(skipped))


def check_space(plan: DownloadPlan, cache: Path | None = None) -> None:
    """Refuse, with the numbers, a download the cache's disk has no room for (files already cached count as 0)."""
    cache = Path(cache or _cache())
    probe = cache
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    needed = int(plan.total_bytes * SPACE_MARGIN)
    if needed > free:
        raise HubDownloadError(f"{plan.repo_id} needs about {format_bytes(needed)} in {cache}, "
                               f"{format_bytes(free)} free: free some space or set HF_HOME to a larger disk")


class _ByteCounter:
    """Bytes written for the current file, counted from the worker thread; cancel is checked at each chunk."""

    def __init__(self, cancel: CancelToken):
        self.cancel = cancel
        self.bytes = 0
        self.kept = 0  # of them, found on disk from an earlier try (not fetched now: no part of the rate)

    def add(self, n: int) -> None:
        self.cancel.check()  # between chunks: the .incomplete blob stays for the next try
        self.bytes += int(n)

    def keep(self, n: int) -> None:
        """``n`` bytes of the file were on disk already (a resumed download)."""
        self.bytes += int(n)
        self.kept += int(n)


def fetch_file(repo_id: str, name: str, commit: str, counter: _ByteCounter) -> Path:
    """One file of ``repo_id`` at ``commit`` into the hub cache's layout; returns its snapshot path.

    The bytes go to ``blobs/<etag>.incomplete``, a name that stays the same from one try to the next,
    so a try that was cancelled or cut off is continued with an HTTP ``Range`` request (``stream_into``
    also asks again itself when the connection drops within a try). The finished
    blob is renamed into place and linked from ``snapshots/<commit>/<name>``, as the hub client does.
    """
    from filelock import FileLock
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.file_download import repo_folder_name

    meta = get_hf_file_metadata(hf_hub_url(repo_id, name, revision=commit))
    if not meta.etag:
        raise HubDownloadError(f"{repo_id}: the hub gave no checksum (ETag) for {name}; try again later")
    storage = _cache() / repo_folder_name(repo_id=repo_id, repo_type="model")
    blob = storage / "blobs" / meta.etag
    pointer = storage / "snapshots" / (meta.commit_hash or commit) / name
    blob.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(blob) + ".lock"):
        if not blob.exists():
            partial = blob.with_name(meta.etag + ".incomplete")
            with partial.open("ab") as out:
                stream_into(meta.location, out, expected_size=meta.size, counter=counter)
            os.replace(partial, blob)
    pointer.parent.mkdir(parents=True, exist_ok=True)
    if not pointer.exists():
        try:
            pointer.symlink_to(os.path.relpath(blob, pointer.parent))
        except OSError:  # no symlinks (Windows without developer mode): a copy, as the hub client does
            shutil.copyfile(blob, pointer)
    return pointer


def stream_into(url: str, out: Any, *, expected_size: int | None, counter: _ByteCounter,
                retries: int = RETRIES) -> None:
    """Append the bytes of ``url`` after what ``out`` (a file opened for appending) already holds.

    What is there is kept and the rest asked for with ``Range``; a connection that drops, stalls or
    ends short is asked again from where it stopped, ``retries`` times in a row without progress.
    ``counter`` counts every chunk and raises ``Cancelled`` between chunks.
    """
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    have = out.seek(0, os.SEEK_END)
    if expected_size is not None and have > expected_size:  # not the start of this file: begin again
        out.truncate(0)
        have = 0
    counter.keep(have)
    failures = 0
    while expected_size is None or have < expected_size:
        headers = build_hf_headers()
        headers["Accept-Encoding"] = "identity"
        if have:
            headers["Range"] = f"bytes={have}-"
        try:
            with get_session().stream("GET", url, headers=headers, follow_redirects=True,
                                      timeout=READ_TIMEOUT_S) as response:
                hf_raise_for_status(response)
                if have and response.status_code == 200:  # the server ignored the Range: start over
                    out.truncate(0)
                    counter.add(-have)
                    have = 0
                for chunk in response.iter_bytes():  # as the bytes arrive: a cut keeps what came
                    counter.add(len(chunk))  # raises Cancelled when asked to stop
                    out.write(chunk)
                    have += len(chunk)
                    failures = 0
            if expected_size is None:
                return
            if have < expected_size:
                raise ConnectionError(f"the connection ended after {have} of {expected_size} bytes")
        except Exception as exc:
            if not (_is_network_error(exc) or isinstance(exc, ConnectionError)):
                raise
            failures += 1
            if failures > retries:
                raise
            out.flush()
            time.sleep(min(0.2 * 2 ** failures, 4.0))
    if have != expected_size:
        raise HubDownloadError(f"{url}: got {have} bytes, the hub said {expected_size}; try again")


def _fetch_in_thread(repo_id: str, name: str, commit: str, counter: _ByteCounter) -> tuple[threading.Thread, dict]:
    """Start ``fetch_file`` in a thread; the dict gets its ``path`` or its ``error``."""
    outcome: dict[str, Any] = {}

    def fetch() -> None:
        try:
            outcome["path"] = fetch_file(repo_id, name, commit, counter)
        except BaseException as exc:  # handed to the generator, which raises it on its own thread
            outcome["error"] = exc

    thread = threading.Thread(target=fetch, name=f"download {name}", daemon=True)
    thread.start()
    return thread, outcome


def download_job(repo_id: str, *, revision: str | None = None, allow_pickle: bool = False,
                   cancel: CancelToken = NEVER_CANCELLED, plan: DownloadPlan | None = None,
                   report_every_s: float = 0.25) -> Generator[Any, None, Path]:
    """Fetch ``repo_id`` into the hub cache; yields the plan, then ``Progress`` in bytes; returns the snapshot.

    Each file is fetched in a worker thread while this generator reports every ``report_every_s``
    (files done, MB of total, rate) and passes ``cancel`` on; the worker stops at its next chunk.
    """
    plan = plan or plan_download(repo_id, revision, allow_pickle=allow_pickle)
    yield plan
    check_space(plan)
    total = plan.total_bytes
    done_before = 0  # bytes of the files finished so far
    kept_before = 0  # of them, found on disk from an earlier try
    started = time.monotonic()
    folder: Path | None = None
    yield Progress(0, max(total, 1), f"downloading {plan.describe()}")
    for index, (name, size) in enumerate(plan.files):
        cancel.check()
        counter = _ByteCounter(cancel)
        thread, outcome = _fetch_in_thread(repo_id, name, plan.commit, counter)
        while thread.is_alive():
            thread.join(report_every_s)
            if thread.is_alive():
                yield _progress(index, len(plan.files), done_before + min(counter.bytes, size), total,
                                time.monotonic() - started, kept_before + counter.kept)
        error = outcome.get("error")
        if isinstance(error, (Cancelled, WorkbenchError)):
            raise error
        if error is not None:
            raise _explain(error, repo_id, revision) from None
        done_before += size
        kept_before += counter.kept
        if name == "config.json":
            folder = Path(outcome["path"]).parent
        yield _progress(index + 1, len(plan.files), done_before, total, time.monotonic() - started, kept_before)
    if folder is None:  # config.json is always in the plan, last
        raise HubDownloadError(f"{repo_id}: the download ended without config.json")
    _write_ref(repo_id, plan.revision, plan.commit)
    return folder


def _write_ref(repo_id: str, revision: str, commit: str) -> None:
    """Point the cache's ``refs/<revision>`` at the commit fetched (files were fetched by commit, which
    writes no ref), so a later offline load of ``repo_id`` at that revision finds the snapshot."""
    from huggingface_hub.file_download import repo_folder_name

    if revision == commit:
        return
    ref = _cache() / repo_folder_name(repo_id=repo_id, repo_type="model") / "refs" / revision
    ref.parent.mkdir(parents=True, exist_ok=True)
    ref.write_text(commit, encoding="utf-8")


def _progress(files_done: int, files_total: int, done: int, total: int, elapsed_s: float,
              kept: int = 0) -> Progress:
    """Bytes done of the total; the rate counts what this try fetched (not ``kept``: bytes an earlier,
    cancelled try left on disk, which a resumed download finds at once)."""
    rate = max(done - kept, 0) / elapsed_s if elapsed_s > 0 else 0.0
    return Progress(done, max(total, 1), f"downloading: {files_done}/{files_total} files, "
                                         f"{done / 2**20:.1f} of {total / 2**20:.1f} MB, {rate / 2**20:.1f} MB/s")


def snapshot_is_complete(folder: Path) -> bool:
    """A cached snapshot with a config and every weight file its index names (or at least one weight file)."""
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        return False
    from lm_workbench.engine.models.weights import pickle_weight_files, safetensors_files

    try:
        shards = safetensors_files(folder)
    except WorkbenchError:
        return False
    if shards:
        return all(p.is_file() for p in shards)
    return bool(pickle_weight_files(folder))

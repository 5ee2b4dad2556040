"""A hub-compatible HTTP server on 127.0.0.1 that serves model folders the tests build.

It answers what ``huggingface_hub`` asks (``/work/shared/NOTES.md``, "Hub without a network"):
``GET /api/models/{id}[/revision/{rev}]`` (sha and siblings with sizes), ``HEAD`` and ``GET
/{id}/resolve/{rev}/{file}`` (``X-Repo-Commit``, ``ETag``, ``Content-Length``, ``Range``), and errors with
``X-Error-Code`` (``RepoNotFound`` 404, ``GatedRepo`` 401, ``RevisionNotFound`` 404,
``EntryNotFound`` 404). Knobs for the tests: ``drop_after`` (cut one file's first response after N
bytes, once), a repository's ``chunk_delay_s`` (slow every 64 KiB chunk, so a cancel lands mid-file) and
``gated``; and
what it saw: ``requests`` (method, path, Range header).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

CHUNK = 64 * 1024


@dataclass
class ServedRepo:
    files: dict[str, bytes]
    sha: str = "0" * 40
    gated: bool = False
    chunk_delay_s: float = 0.0  # slow every 64 KiB chunk of this repository's files (a cancel lands mid-file)

    @classmethod
    def from_folder(cls, folder: Path, sha: str) -> "ServedRepo":
        return cls({p.name: p.read_bytes() for p in sorted(Path(folder).iterdir()) if p.is_file()}, sha=sha)


@dataclass
class HubServer:
    repos: dict[str, ServedRepo] = field(default_factory=dict)
    drop_after: dict[str, int] = field(default_factory=dict)  # "org/name/file" -> bytes sent before the cut, once
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "HubServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def ranges_for(self, repo_id: str, name: str) -> list[str]:
        """The Range headers of the GET requests for file ``name`` of ``repo_id``."""
        return [r for method, path, r in self.requests
                if method == "GET" and path.startswith(f"/{repo_id}/resolve/") and path.endswith("/" + name) and r]


def _split(path: str, marker: str) -> tuple[str, str] | None:
    """``org/name`` and the rest of a path around ``/{marker}/``."""
    if f"/{marker}/" not in path:
        return None
    head, rest = path.split(f"/{marker}/", 1)
    return head.strip("/"), rest


def _handler_for(hub: HubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _error(self, status: int, code: str, message: str) -> None:
            body = json.dumps({"error": message}).encode()
            self.send_response(status)
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, data: object) -> None:
            body = json.dumps(data).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _repo(self, repo_id: str, revision: str) -> ServedRepo | None:
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(404, "RepoNotFound", f"Repository {repo_id} not found")
                return None
            if repo.gated:
                self._error(401, "GatedRepo", f"Access to model {repo_id} is restricted")
                return None
            if revision not in ("main", repo.sha):
                self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
                return None
            return repo

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve()

        def do_GET(self) -> None:  # noqa: N802
            self._serve()

        def _serve(self) -> None:
            path = unquote(urlparse(self.path).path)
            hub.requests.append((self.command, path, self.headers.get("Range")))
            if path.startswith("/api/models/"):
                rest = path[len("/api/models/"):]
                repo_id, revision = (rest.split("/revision/", 1) + ["main"])[:2]
                repo = self._repo(repo_id.strip("/"), revision)
                if repo is not None:
                    self._json({"id": repo_id, "modelId": repo_id, "sha": repo.sha, "private": False,
                                "siblings": [{"rfilename": n, "size": len(b), "blobId": _sha1(b)}
                                             for n, b in repo.files.items()]})
                return
            parts = _split(path, "resolve")
            if parts is None:
                self._error(404, "EntryNotFound", f"no route {path}")
                return
            repo_id, rest = parts
            revision, _, name = rest.partition("/")
            repo = self._repo(repo_id, revision)
            if repo is None:
                return
            if name not in repo.files:
                self._error(404, "EntryNotFound", f"{name} does not exist in {repo_id}")
                return
            self._file(repo, repo_id, name)

        def _file(self, repo: ServedRepo, repo_id: str, name: str) -> None:
            data = repo.files[name]
            start = 0
            asked = self.headers.get("Range")
            if asked and asked.startswith("bytes="):
                start = int(asked[len("bytes="):].split("-", 1)[0] or 0)
            body = data[start:]
            self.send_response(206 if start else 200)
            self.send_header("X-Repo-Commit", repo.sha)
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("Content-Length", str(len(body)))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if self.command == "HEAD":
                return
            cut = hub.drop_after.pop(f"{repo_id}/{name}", None) if not start else None
            sent = 0
            for offset in range(0, len(body), CHUNK):
                piece = body[offset:offset + CHUNK]
                if cut is not None and sent + len(piece) > cut:
                    self.wfile.write(piece[:cut - sent])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)  # the connection drops mid-file
                    return
                if repo.chunk_delay_s:
                    time.sleep(repo.chunk_delay_s)
                try:
                    self.wfile.write(piece)
                except (BrokenPipeError, ConnectionResetError):  # the client went away (a cancel)
                    self.close_connection = True
                    return
                sent += len(piece)

    return Handler


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()

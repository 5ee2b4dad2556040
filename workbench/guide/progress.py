"""A student's progress through a guide, kept per OS user in the data folder (no Qt, no account, no network).

``<data folder>/guide-progress/<user>.json`` holds, per guide, the page the student was on (to resume) and per
page id: attempts, right / wrong tries, whether it was answered right, seconds spent and the page's version (the
digest of its file when first tried): a page whose file changed since says so (``changed``). Writing is atomic
(a temporary file renamed over the old one), so a crash never loses what was saved. ``export_csv`` writes one row
per page for a teacher; ``reset`` forgets one guide's progress (or every guide's).
"""

from __future__ import annotations

import csv
import getpass
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

FOLDER = "guide-progress"
CSV_COLUMNS = ("user", "guide", "number", "page", "title", "lecture", "attempts", "right", "wrong", "answered",
               "seconds", "changed", "last")


def current_user() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 (no user name from the system: one shared file)
        name = "user"
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "user"


@dataclass
class PageProgress:
    attempts: int = 0
    right: int = 0
    wrong: int = 0  # wrong tries since the page was last answered right (hints and the reveal count them)
    answered: bool = False
    seconds: float = 0.0
    version: str = ""  # the page's digest when it was first tried
    last: str = ""  # ISO time of the last try

    def wrong_total(self) -> int:
        return self.attempts - self.right


@dataclass
class GuideProgress:
    current: str = ""  # the page id to resume at
    pages: dict[str, PageProgress] = field(default_factory=dict)


class Progress:
    """One OS user's progress (read at creation, saved after every change)."""

    def __init__(self, folder: str | Path | None = None, user: str | None = None) -> None:
        if folder is None:
            from lm_workbench.paths import data_dir

            folder = data_dir() / FOLDER
        self.folder = Path(folder)
        self.user = user or current_user()
        self.path = self.folder / f"{self.user}.json"
        self.guides: dict[str, GuideProgress] = self._read()

    def _read(self) -> dict[str, GuideProgress]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        out = {}
        for name, g in (data.get("guides") or {}).items():
            pages = {pid: PageProgress(**{k: v for k, v in p.items() if k in PageProgress.__dataclass_fields__})
                     for pid, p in (g.get("pages") or {}).items()}
            out[name] = GuideProgress(str(g.get("current", "")), pages)
        return out

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {"format": "lm-workbench-guide-progress/1", "user": self.user,
                "guides": {n: {"current": g.current, "pages": {p: asdict(v) for p, v in g.pages.items()}}
                           for n, g in self.guides.items()}}
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)

    def of(self, guide: str) -> GuideProgress:
        return self.guides.setdefault(guide, GuideProgress())

    def page(self, guide: str, page_id: str) -> PageProgress:
        return self.of(guide).pages.setdefault(page_id, PageProgress())

    def visit(self, guide: str, page_id: str) -> None:
        self.of(guide).current = page_id
        self.save()

    def add_time(self, guide: str, page_id: str, seconds: float) -> None:
        if seconds > 0:
            self.page(guide, page_id).seconds += float(seconds)
            self.save()

    def record(self, guide: str, page: Any, correct: bool) -> PageProgress:
        """One try at ``page`` (a ``Page``): right or wrong."""
        p = self.page(guide, page.id)
        p.attempts += 1
        if not p.version:
            p.version = page.digest
        if correct:
            p.right += 1
            p.answered = True
            p.wrong = 0
        else:
            p.wrong += 1
        p.last = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.save()
        return p

    def changed(self, guide: str, page: Any) -> bool:
        """Whether ``page``'s file changed since the student first tried it."""
        p = self.of(guide).pages.get(page.id)
        return bool(p and p.version and p.version != page.digest)

    def resume_index(self, guide: Any) -> int:
        """The page to resume ``guide`` at: the last one visited (0 when none, or it is gone)."""
        current = self.of(guide.name).current
        ids = [p.id for p in guide.pages]
        return ids.index(current) if current in ids else 0

    def reset(self, guide: str | None = None) -> None:
        """Forget ``guide``'s progress (None: every guide's) for this user."""
        if guide is None:
            self.guides.clear()
        else:
            self.guides.pop(guide, None)
        self.save()

    def rows(self, guide: Any) -> list[dict[str, Any]]:
        g = self.of(guide.name)
        out = []
        for number, page in enumerate(guide.pages, start=1):
            p = g.pages.get(page.id, PageProgress())
            out.append({"user": self.user, "guide": guide.name, "number": number, "page": page.id,
                        "title": page.title, "lecture": page.lecture, "attempts": p.attempts, "right": p.right,
                        "wrong": p.wrong_total(), "answered": p.answered, "seconds": round(p.seconds, 1),
                        "changed": self.changed(guide.name, page), "last": p.last})
        return out

    def export_csv(self, guide: Any, path: str | Path) -> Path:
        """One row per page of ``guide`` (``CSV_COLUMNS``) to ``path``."""
        target = Path(path)
        with target.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(self.rows(guide))
        return target

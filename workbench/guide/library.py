"""Where guides come from: the built-in one (package data), a teacher's own (a user folder), third parties' (the
``lm_workbench.guides`` entry-point group). No Qt.

A guide is a folder: ``guide.txt`` (``format: lm-workbench-guide/1``, ``name:``, ``title:``, optional
``description:``) and its page files ``*.page`` (``lm_workbench.guide.page``), in the order of their file names
(``01-...``). A teacher copies the built-in folder into ``<data folder>/guides/<name>/`` and edits it, or writes
their own there. An entry point of the group ``lm_workbench.guides`` names a guide folder: a ``str``/``Path``,
or a callable returning one.

Loading checks every page (its view and settings against the installed window's views, its question against
the view's metrics and questions) and refuses the first bad one with ``<file>:<line>: <what>``; page ids are
unique within a guide.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.frontends import window_views
from lm_workbench.guide.page import FORMAT, GuideError, Page, parse_page, read_header

GROUP = "lm_workbench.guides"
BUILTIN = "builtin"  # the built-in guide's name
DATA_PACKAGE = "lm_workbench.guide"
USER_FOLDER = "guides"  # in the data folder
MANIFEST = "guide.txt"
MAX_PAGE_BYTES = 200_000


@dataclass(frozen=True)
class Guide:
    name: str
    title: str
    description: str
    pages: tuple[Page, ...]
    folder: str
    origin: str  # "built-in", "yours" or "plugin <distribution>"

    def page(self, ref: str) -> Page:
        """A page by id, or by number (1 is the first)."""
        for page in self.pages:
            if page.id == ref:
                return page
        if ref.isdigit() and 1 <= int(ref) <= len(self.pages):
            return self.pages[int(ref) - 1]
        raise GuideError(f"no page {ref!r} in the guide {self.name!r} (pages 1..{len(self.pages)}: "
                         f"{', '.join(p.id for p in self.pages[:6])}, ...)")

    def index(self, page_id: str) -> int:
        return next(i for i, p in enumerate(self.pages) if p.id == page_id)


def _find_step(name: str, number: int) -> tuple[Any, Any]:
    from lm_workbench.lectures.library import find_builtin

    preset = find_builtin(name)
    if not 1 <= number <= len(preset.steps):
        raise GuideError(f"the preset {name!r} has steps 1..{len(preset.steps)}, not {number}")
    return preset.steps[number - 1], preset.model


def load_page_text(text: str, source: str, views: Mapping[str, frozenset[str]] | None = None) -> Page:
    from lm_workbench.guide.questions import check_question

    return parse_page(text, source, views if views is not None else window_views(), check_question, _find_step)


def _read(path: Path) -> str:
    from lm_workbench.engine.text_input import read_text_file

    try:
        if path.stat().st_size > MAX_PAGE_BYTES:
            raise GuideError(f"{path}: too large for a guide file (at most {MAX_PAGE_BYTES // 1000} kB)")
        return read_text_file(path)
    except OSError as exc:
        raise GuideError(f"{path}: cannot read it ({exc.strerror})") from None
    except GuideError:
        raise
    except WorkbenchError as exc:
        raise GuideError(str(exc)) from None


def load_guide(folder: str | Path, origin: str = "yours", views: Mapping[str, frozenset[str]] | None = None,
               label: str = "") -> Guide:
    """The guide in ``folder`` (see the module); a ``GuideError`` names the file and line of the first bad page.
    ``label``: how messages name the folder (default: its path)."""
    root = Path(folder)
    prefix = label or str(root)
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise GuideError(f"{prefix}: not a guide folder (no {MANIFEST})")
    source = f"{prefix}/{MANIFEST}"
    text = _read(manifest) + "\n---\n"
    head, _multi, _body, end = read_header(text, source, {"format", "name", "title", "description"})
    fmt = head.get("format", (1, ""))
    if fmt[1] != FORMAT:
        raise GuideError(f"{source}:{fmt[0]}: format: must be {FORMAT!r}, not {fmt[1]!r}")
    for key in ("name", "title"):
        if not head.get(key, (0, ""))[1]:
            raise GuideError(f"{source}:{head.get(key, (end, ''))[0]}: {key}: is missing")
    pages: list[Page] = []
    seen: dict[str, str] = {}
    for path in sorted(root.glob("*.page")):
        page = load_page_text(_read(path), f"{prefix}/{path.name}", views)
        if page.id in seen:
            raise GuideError(f"{prefix}/{path.name}:1: id: {page.id!r} is the id of {seen[page.id]} too")
        seen[page.id] = path.name
        pages.append(page)
    if not pages:
        raise GuideError(f"{prefix}: the guide has no page files (*.page)")
    return Guide(head["name"][1], head["title"][1], head.get("description", (0, ""))[1], tuple(pages), str(root),
                 origin)


def builtin_folder() -> Path:
    return Path(str(resources.files(DATA_PACKAGE).joinpath("data", BUILTIN)))


def builtin_guide(views: Mapping[str, frozenset[str]] | None = None) -> Guide:
    return load_guide(builtin_folder(), "built-in", views, label="built-in guide")


def user_guides_folder() -> Path:
    from lm_workbench.paths import data_dir

    folder = data_dir() / USER_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _plugin_folders() -> list[tuple[str, Path]]:
    from importlib.metadata import entry_points

    out = []
    for ep in entry_points(group=GROUP):
        try:
            value = ep.load()
            folder = value() if callable(value) else value
            out.append((f"plugin {ep.name}", Path(str(folder))))
        except Exception as exc:  # noqa: BLE001 (a broken plugin is listed as a problem, never a crash)
            out.append((f"plugin {ep.name}", Path(f"<{ep.value}: {exc}>")))
    return out


def all_guides(views: Mapping[str, frozenset[str]] | None = None) -> tuple[list[Guide], list[str]]:
    """Every guide here: built-in first, then the user's folders, then the plugins'; and one message per guide
    that did not load (a user's or a plugin's broken page never hides the others)."""
    guides, problems = [builtin_guide(views)], []
    sources = [("yours", p) for p in sorted(user_guides_folder().iterdir()) if p.is_dir()] + _plugin_folders()
    for origin, folder in sources:
        try:
            guides.append(load_guide(folder, origin, views))
        except GuideError as exc:
            problems.append(str(exc))
    return guides, problems


def find_guide(name: str | None) -> Guide:
    """The guide called ``name`` (None: the built-in one), or a guide folder's path; refused naming the bad file
    and line when that guide does not load."""
    if not name or name == BUILTIN:
        return builtin_guide()
    if Path(name).is_dir():
        return load_guide(name)
    guides, problems = all_guides()
    for guide in guides:
        if guide.name == name:
            return guide
    for problem in problems:
        if f"/{name}/" in problem or problem.startswith(name):
            raise GuideError(problem)
    raise GuideError(f"no guide called {name!r} (guides: {', '.join(g.name for g in guides)})")

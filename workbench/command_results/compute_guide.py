"""``guide list``, ``guide show``, ``guide check`` and ``guide progress`` computed for both front ends: the
Guide's pages, one page, an answer checked against a model (the right answer computed on it by the view's own
engine function; never stored in the page), and this OS user's progress. They read no loaded model (``guide
check`` loads the model it names, or the page's own). The CLI's handlers print the result; the Python API returns
it. Errors: ``WorkbenchError`` (a ``GuideError`` names the page file and line).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for

EXIT_OK, EXIT_WRONG, EXIT_UNANSWERABLE = 0, 1, 2


def find(request: Any) -> Any:
    """The guide ``request.guide`` names (None: the built-in one)."""
    from lm_workbench.guide.library import find_guide

    return find_guide(request.guide)


def guide_list(request: Any, loaded: Any = None) -> Result:
    """The pages in order: ``guide``, ``title``, ``pages`` (number, id, lecture, title, view, model, exercise kind)."""
    guide = find(request)
    rows = [{"number": i, "id": p.id, "lecture": p.lecture, "title": p.title, "view": p.view,
             "model": p.model if isinstance(p.model, str) else list(p.model),
             "exercise": p.exercise.kind if p.exercise else None} for i, p in enumerate(guide.pages, start=1)]
    return result_for("guide list", as_json({"guide": guide.name, "title": guide.title, "pages": rows}),
                      engine_result=guide)


def guide_show(request: Any, loaded: Any = None) -> Result:
    """One page (by id or number): its text, lecture, view, model, settings and exercise (never its answer)."""
    page = find(request).page(request.page)
    return result_for("guide show", as_json(page.to_json()), engine_result=page)


def guide_check(request: Any, loaded: Any = None) -> Result:
    """``page``, ``correct`` (None: the model cannot answer it, said in ``explanation`` and ``notes``), ``expected``,
    ``shown``, ``explanation``, ``model``, ``hint``, ``notes``; the exit code is 0 right, 1 wrong, 2 unanswerable.
    The model: ``request.model`` (a spec, a folder, default, course:<family>), else the page's own."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.guide.check import check_answer, page_model
    from lm_workbench.lectures.availability import installed_course_models, resolve_model
    from lm_workbench.lectures.verify import ModelCache
    from lm_workbench.settings import load_settings

    page = find(request).page(request.page)
    if page.exercise is None:
        raise WorkbenchError(f"the page {page.id!r} has no exercise")
    course, default = installed_course_models(), load_settings().default_model
    spec = resolve_model(request.model, default, course) if request.model else page_model(page, course, default)
    result = check_answer(page, request.answer, spec, ModelCache(), course_models=course)
    code = EXIT_UNANSWERABLE if result.correct is None else EXIT_OK if result.correct else EXIT_WRONG
    return result_for("guide check", as_json(result.to_json()), exit_code=code, engine_result=(result, spec))


def guide_progress(request: Any, loaded: Any = None) -> Result:
    """This OS user's progress in the guide: ``user``, ``guide``, ``pages`` (number, page, answered, attempts,
    seconds, changed); with ``reset`` it is forgotten (``reset``: true), with ``csv`` written there (``csv``: the
    path, ``rows``)."""
    from lm_workbench.guide.progress import Progress

    guide, progress = find(request), Progress()
    head = {"user": progress.user, "guide": guide.name}
    if request.reset:
        progress.reset(guide.name)
        return result_for("guide progress", as_json(head | {"reset": True}))
    if request.csv:
        path = progress.export_csv(guide, request.csv)
        return result_for("guide progress", as_json(head | {"csv": str(path), "rows": len(guide.pages)}))
    return result_for("guide progress", as_json(head | {"pages": progress.rows(guide)}))

"""``presets list``, ``presets check`` and ``presets verify`` computed for both front ends: the lecture presets with
whether this installation can show them (the window's views, the course models built), a teacher's preset file
checked, and every claim of the named presets evaluated on the models they name (holds, fails or cannot run, with
the numbers). They read no loaded model (``verify`` loads what each preset names). The CLI's handlers print the
result; the Python API returns it. Errors: ``PresetError`` (a ``WorkbenchError``) naming the file and field.
"""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.frontends import window_views

EXIT_CLAIM_FAILS = 1  # ``presets verify``: a claim that ran did not hold


def describe(preset: Any, views: Any, course_models: Any) -> dict[str, Any]:
    """One preset's row: ``name``, ``title``, ``model``, ``steps``, ``available`` (``reason`` when not) and per step
    its caption, availability, reason and number of claims."""
    from lm_workbench.lectures.availability import check_preset

    status = check_preset(preset, views, course_models)
    row: dict[str, Any] = {"name": preset.name, "title": preset.title, "model": preset.model,
                           "steps": len(preset.steps), "available": status.available}
    if not status.available:
        row["reason"] = status.reason
    row["step_captions"] = [s.caption for s in preset.steps]
    row["steps_available"] = [s.available for s in status.steps]
    row["step_reasons"] = [s.reason for s in status.steps]
    row["step_claims"] = [len(s.claims) for s in preset.steps]
    return row


def presets_list(request: Any, loaded: Any = None) -> Result:
    """One row per preset (``describe``): the built-in ones, then each ``file``. Errors: a file that is no valid
    preset."""
    from lm_workbench.lectures.availability import installed_course_models
    from lm_workbench.lectures.library import builtin_presets, load_preset_file

    presets = builtin_presets() + [load_preset_file(f) for f in request.file]
    views, course = window_views(), installed_course_models()
    return result_for("presets list", as_json([describe(p, views, course) for p in presets]))


def presets_check(request: Any, loaded: Any = None) -> Result:
    """The preset file's row (``describe``). Errors: the file's first wrong field (a claim's unknown metric or
    op included), as one line naming the file."""
    from lm_workbench.lectures.availability import installed_course_models
    from lm_workbench.lectures.library import load_preset_file

    preset = load_preset_file(request.file)  # a PresetError: one line, exit 2
    return result_for("presets check", as_json(describe(preset, window_views(), installed_course_models())))


def _named_presets(names: list[str]) -> list[Any]:
    """The presets ``names`` name: a file, else a built-in preset, else one in the user's presets folder."""
    from pathlib import Path

    from lm_workbench.lectures.library import builtin_presets, load_preset_file, user_presets
    from lm_workbench.lectures.schema import PresetError

    if not names:
        return builtin_presets()
    builtin = {p.name: p for p in builtin_presets()}
    out = []
    for name in names:
        if Path(name).is_file():
            out.append(load_preset_file(name))
        elif name in builtin:
            out.append(builtin[name])
        else:
            own = {p.name: p for p in user_presets()[0]}
            if name not in own:
                raise PresetError(f"{name}: neither a preset file nor a preset's name (built-in: "
                                  f"{', '.join(builtin)})")
            out.append(own[name])
    return out


def presets_verify(request: Any, loaded: Any = None, *, on_outcome: Callable[[Any], None] | None = None) -> Result:
    """``claims`` (one per claim: preset, step, claim, value, compared_to, status holds / fails / cannot run,
    predicate, model, reason), ``counts`` per status and ``notes`` (presets without claims); exit code 1 when a
    claim fails. ``on_outcome`` sees each claim's outcome as it is evaluated. Errors: a name that is neither a
    preset file nor a preset's name (before any model loads)."""
    from lm_workbench.lectures.verify import CANNOT_RUN, FAILS, HOLDS, verify_presets

    presets = _named_presets(list(request.presets))  # a bad file or name: one line, before any model loads
    notes = [f"{p.name}: no step carries a claim" for p in presets if not any(s.claims for s in p.steps)]
    outcomes = verify_presets(presets, on_outcome=on_outcome)
    counts = {k: sum(o.status == k for o in outcomes) for k in (HOLDS, FAILS, CANNOT_RUN)}
    data = {"claims": [o.to_json() for o in outcomes], "counts": counts, "notes": notes}
    return result_for("presets verify", as_json(data), exit_code=EXIT_CLAIM_FAILS if counts[FAILS] else 0,
                      engine_result=outcomes)

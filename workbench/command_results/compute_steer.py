"""``steer`` computed for both front ends: a steering vector (an SAE feature's decoder direction, a
contrastive-pair mean difference or a saved vector) added at a hook point, the predictions with and without it
(Turner et al. 2023, activation addition; Templeton et al. 2024, feature steering), or a grid of layers x
strengths. The CLI's handler prints the result; the Python API returns it. Errors: ``WorkbenchError`` with the
CLI's line.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.checks import positive
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.driving import drive_quietly
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.engine.errors import WorkbenchError


def check_steer(request: Any) -> None:
    """The checks that need no model: ``generate`` not negative, the grid's options only with ``grid``, no
    ``save_vector`` with ``grid``."""
    if request.generate < 0:
        raise WorkbenchError(f"--generate must not be negative, not {request.generate}")
    if request.grid and request.save_vector:
        raise WorkbenchError("--save-vector does not go with --grid (save the vector with a plain steer)")
    if not request.grid and (request.grid_layers or request.grid_strengths or request.concept):
        raise WorkbenchError("--grid-layers, --grid-strengths and --concept go with --grid")


def steer(request: Any, loaded: Any, *, quiet: bool = True) -> Result:
    """The steered and unsteered predictions at the last position (``unsteered``/``steered``: top tokens with
    probabilities, ``kl``: KL(unsteered || steered) in nats, ``vector``: how the vector was made, ``notes``), or
    with ``grid`` one row per (layer, strength) (``grid``: layer, strength, concept_score, kl, top_token, text).
    ``quiet`` False: the grid's progress lines on stderr (the CLI without ``--json``)."""
    check_steer(request)
    if request.grid:
        from lm_workbench.sae.grid import command_grid

        data = drive_quietly(command_grid(loaded, request), quiet=quiet)
        return result_for("steer", as_json(data))
    from lm_workbench.engine.sae.files import save_vector
    from lm_workbench.engine.steering.apply import steer as steer_model
    from lm_workbench.sae.reading import steering_vector
    from lm_workbench.sae.sites import model_fingerprint

    site, vector, how, notes = steering_vector(loaded, request.site, vector=request.vector, feature=request.feature,
                                               pairs=request.pairs)
    steered = steer_model(loaded, request.text, site, vector, request.strength, k=positive(request.top, "--top"),
                          generate_tokens=request.generate)
    if request.save_vector:
        save_vector(request.save_vector, vector, site=request.site, model_name=loaded.info.spec,
                    fingerprint=model_fingerprint(loaded), how=how)
    data = steered.to_dict()
    data["vector"] = how
    data["notes"] = notes + steered.notes
    return result_for("steer", as_json(data), engine_result=steered)

"""The commands that load their own models or none, computed for both front ends: ``compare`` (layer × layer
linear CKA of two models on the same words, Kornblith et al. 2019), ``download`` (a hub model into the cache),
``corrupt`` (what a pre-training objective does to a text), ``predict`` (a fine-tuned run's answer) and
``finetune-merge`` (a LoRA/IA³ run folded into its base, or several combined: task arithmetic, TIES, DARE). The
CLI's handlers print the result; the Python API returns it. Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from lm_workbench.command_results.checks import note
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.driving import drive_quietly
from lm_workbench.command_results.options import settings_for
from lm_workbench.command_results.results import Result, result_for


def compare(request: Any, loaded: Any = None, *, quiet: bool = True) -> Result:
    """``model_a``, ``model_b``, ``layers_a``, ``layers_b``, ``words`` and ``cka`` (rows: A's layers 0..L,
    columns: B's; each in [0, 1]). Both models are loaded here, through the one loader. Errors: a model that
    does not load, a text under two words."""
    from lm_workbench.engine.compare.cka import layer_cka_job
    from lm_workbench.models.loader import load_model

    settings = settings_for(request)
    models = [load_model(spec, settings=settings) for spec in (request.model_a, request.model_b)]
    result = drive_quietly(layer_cka_job(models[0], models[1], list(request.text)), quiet=quiet)
    return result_for("compare", as_json(result.to_dict()), engine_result=result)


def download(request: Any, loaded: Any = None, *, listener: Callable[[Any], None] | None = None) -> Result:
    """``repo_id``, ``revision``, ``commit``, ``folder`` (the cache folder), ``files`` and ``bytes``: the hub
    model fetched into the cache (resuming a partial download), not loaded. ``listener`` sees each ``Progress``
    (bytes done of the total). Errors: offline mode on, a repository or revision the hub does not have, pickle
    weights without ``allow_pickle``."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.models.download import DownloadPlan, download_job
    from lm_workbench.engine.progress import Progress, relay

    settings = settings_for(request)
    if settings.offline:
        raise WorkbenchError("offline mode is on (settings, --offline or HF_HUB_OFFLINE): turn it off to download")
    plans: list[DownloadPlan] = []

    def as_progress(event: Any) -> Any:  # the plan (files, bytes) comes first: progress from 0 of its bytes
        if isinstance(event, DownloadPlan):
            plans.append(event)
            return Progress(0, max(event.total_bytes, 1), f"downloading {event.describe()}")
        return event

    folder = drive_quietly(relay(download_job(request.repo_id, revision=request.revision,
                                              allow_pickle=settings.allow_pickle_weights), as_progress),
                           listener=listener)
    plan = plans[0]
    return result_for("download", {"repo_id": request.repo_id, "revision": plan.revision, "commit": plan.commit,
                                   "folder": str(folder), "files": len(plan.files), "bytes": plan.total_bytes},
                      engine_result=plan)


def corrupt(request: Any, loaded: Any = None) -> Result:
    """``objective``, ``seed``, ``config``, ``input_tokens``, ``kinds``, ``label_tokens``, ``labels_aligned``
    (the objective's first draw on the text, read by ``tokenizer``: a hub id, folder or ``course:<family>``);
    with ``samples``, ``rates`` measured over that many draws; ``notes`` when the text is longer than the
    tokenizer's window (only its first window is shown). Errors: an empty text, an unknown objective or setting,
    a tokenizer the objective cannot use."""
    import numpy as np

    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.plugin_api import config_from_strings
    from lm_workbench.engine.text_input import require_text
    from lm_workbench.extensions.registry import ObjectiveRegistry
    from lm_workbench.masking_lab.preview import (
        draw_previews, encode_text, first_preview, measure_rates, preview_json, special_mask,
    )
    from lm_workbench.models.spec_kinds import load_spec_tokenizer

    require_text(request.text)
    if request.samples is not None and request.samples < 1:
        raise WorkbenchError(f"--samples must be at least 1, not {request.samples}")
    settings = settings_for(request)
    registry = ObjectiveRegistry.discover(settings)
    objective = registry.objective(request.objective)
    config = config_from_strings(objective.default_config(), list(request.set), objective.name)
    objective.check_config(config)
    tokenizer = load_spec_tokenizer(request.tokenizer, trust_remote_code=settings.trust_remote_code)  # course:t5
    objective.check_requirements(tokenizer)
    ids, full = encode_text(tokenizer, request.text)
    cut = f"the text has {full} tokens; only the first {len(ids)} fit the tokenizer's window" if full > len(ids) else None
    if cut:
        note(cut)
    rng = np.random.default_rng(request.seed)
    first = first_preview(registry, objective.name, ids, tokenizer, rng, config)
    data = {"objective": objective.name, "seed": request.seed, "config": dataclasses.asdict(config)}
    data |= preview_json(first, tokenizer)
    if request.samples:
        previews = draw_previews(registry, objective.name, ids, tokenizer, rng, config, request.samples, [first])
        data["samples"] = request.samples
        data["rates"] = measure_rates(previews, special_mask(tokenizer))
    if cut:  # a whole-text view of the first window: the JSON says so too (docs/data-formats.md)
        data["notes"] = [cut]
    return result_for("corrupt", as_json(data))


def predict(request: Any, loaded: Any = None) -> Result:
    """A fine-tuned run's answer for ``text`` (``task`` and, by task: ``label`` and ``confidence``, ``tokens``
    with their tags, the ``answer`` span of ``context``, the ``cosine`` of ``text`` and ``text2``, a generated
    ``answer`` or ``text``); ``notes`` when an input was cut to the run's maximum length (each said on stderr
    too). Errors: a folder that is not a fine-tuning output, an input the task needs missing."""
    from lm_workbench.engine.finetune.saved import predict as predict_with
    from lm_workbench.finetune.train import open_output

    tuned = open_output(request.folder)
    if tuned.task == "preference":  # the tuned language model answers through the run's chat template
        from lm_workbench.engine.preference.answer import answer

        result = {"task": tuned.task, **answer(tuned.model, tuned.tokenizer, tuned.manifest, request.text)}
    else:
        result = predict_with(tuned, request.text, text2=request.text2, context=request.context)
    for line in result.get("notes", []):  # an input longer than the run's maximum length was cut
        note(line)
    return result_for("predict", as_json(result))


def finetune_merge(request: Any, loaded: Any = None) -> Result:
    """The merged folder's summary: ``sources``, ``how``, ``weights``, ``method``, ``folded`` (a plain model
    folder, or an adapter that ``predict`` opens), ``out_dir`` and ``notes``. One run is folded into its base
    weights; several LoRA or IA³ runs on one base are combined (linear task arithmetic Σ wᵢ·ΔWᵢ; TIES, Yadav et
    al. 2023; DARE, Yu et al. 2024, as peft's ``add_weighted_adapter``). Errors: runs on different bases or
    label sets, a method that cannot merge, weights that do not match the runs."""
    from lm_workbench.engine.finetune.merging import merge_runs

    summary = drive_quietly(merge_runs(list(request.folders), request.out, how=request.how, weights=request.weights,
                                       density=request.density, seed=request.seed, fold=request.fold))
    return result_for("finetune-merge", as_json(summary))

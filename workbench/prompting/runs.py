"""Prompt evaluations as runs: params, computing them, and recording them in the run store.

A run's ``params`` say everything needed to repeat it: the model, the templates and their mode, the
verbalizers (every template is evaluated with every verbalizer, side by side), the data file (or the name of
a prompt set that ships example data, e.g. ``sentiment``), k, the seed, the selection of demonstrations and
whether to calibrate. ``prompt_eval_steps`` computes from a loaded model (the CLI, the Prompting view and the
long-run job all go through it); ``record_prompt_eval`` writes a finished evaluation as a ``prompt-eval``
run: one metrics row per prompt (step = the prompt's index), and the whole result as a JSON artifact.
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any, Generator

from engine.errors import WorkbenchError
from engine.progress import NEVER_CANCELLED, CancelToken
from engine.prompting.names import MODES as TEMPLATE_MODES

PROMPT_EVAL_KIND = "prompt-eval"
MODES = ("auto", *TEMPLATE_MODES)
EMBEDDING_MODEL = "minilm"  # the Embeddings tab's sentence model, for similar demonstrations


def prompt_eval_params(model: str, templates: list[str], verbalizers: list[str], data: str, *,
                       mode: str = "auto", k_shot: int = 0, seed: int = 0, selection: str = "random",
                       calibrate: bool = False, multi_token: str = "left-to-right", length_normalise: bool = False,
                       limit: int | None = None) -> dict[str, Any]:
    """Checked params of a prompt evaluation (everything that can be checked before a model loads)."""
    from engine.prompting.fewshot import check_choice
    from engine.prompting.template import Template
    from engine.prompting.verbalizer import Verbalizer

    if mode not in MODES:
        raise WorkbenchError(f"--mode must be auto, cloze or prefix, not {mode!r}")
    if not templates:
        raise WorkbenchError("give a template with --template, e.g. \"[x] Overall, it was a [z] movie.\"")
    if not verbalizers:
        raise WorkbenchError("give a verbalizer with --verbalizer, e.g. \"pos=great,good;neg=terrible,bad\"")
    for text in templates:
        # auto: the cloze rules hold for every mode; prefix's own rule waits for the model's family
        Template.parse(text, "cloze" if mode == "auto" else mode)
    for spec in verbalizers:
        Verbalizer.parse(spec)
    check_choice(k_shot, selection, "as-chosen")
    if limit is not None and limit < 1:
        raise WorkbenchError(f"--limit must be at least 1, not {limit}")
    return {"model": model, "templates": list(templates), "mode": mode, "verbalizers": list(verbalizers),
            "data": str(data), "k_shot": int(k_shot), "seed": int(seed), "selection": selection,
            "calibrate": bool(calibrate), "multi_token": multi_token, "length_normalise": bool(length_normalise),
            "limit": limit}


def prompt_eval_command(params: dict[str, Any]) -> str:
    """The ``lm-workbench prompt-eval`` line that repeats a prompt evaluation."""
    parts = ["lm-workbench", "prompt-eval", params["model"]]
    for text in params["templates"]:
        parts += ["--template", text]
    for spec in params["verbalizers"]:
        parts += ["--verbalizer", spec]
    parts += ["--data", params["data"]]
    if params.get("mode", "auto") != "auto":
        parts += ["--mode", params["mode"]]
    if params.get("k_shot"):
        parts += ["--k-shot", str(params["k_shot"]), "--selection", params.get("selection", "random")]
    parts += ["--seed", str(params.get("seed", 0))]
    if params.get("calibrate"):
        parts.append("--calibrate")
    if params.get("multi_token", "left-to-right") != "left-to-right":
        parts += ["--multi-token", params["multi_token"]]
    if params.get("length_normalise"):
        parts.append("--length-normalise")
    if params.get("limit"):
        parts += ["--limit", str(params["limit"])]
    return shlex.join(parts + ["--json"])


def resolve_data(data: str) -> Path:
    """A labelled file, or the example data of the installed prompt set named ``data`` (e.g. ``sentiment``)."""
    path = Path(data)
    if path.is_file():
        return path
    from workbench.prompting.sets import example_data_path

    example = example_data_path(data)
    if example is not None:
        return example
    raise WorkbenchError(f"{data}: no such file (nor a prompt set with example data, e.g. sentiment or topic)")


def read_prompt_data(params: dict[str, Any]) -> Any:
    """The labelled data of ``params``, read and checked against the verbalizers (before a model loads)."""
    from engine.finetune.data import read_classification
    from engine.prompting.verbalizer import Verbalizer

    path = resolve_data(params["data"])
    data = read_classification(path)
    for spec in params["verbalizers"]:
        Verbalizer.parse(spec).require_labels(data.labels, str(path))
    return data


def prompt_mode(loaded: Any, params: dict[str, Any]) -> str:
    """The template mode: as asked, or (auto) cloze for a masked LM and prefix for the other families."""
    from engine.families import Family

    if params.get("mode", "auto") != "auto":
        return params["mode"]
    return "cloze" if loaded.family is Family.ENCODER else "prefix"


def prompt_choices(loaded: Any, params: dict[str, Any]) -> list[Any]:
    """Every template with every verbalizer, named T1·V1, T1·V2, ... when there is more than one."""
    from engine.prompting.evaluate import PromptChoice
    from engine.prompting.template import Template
    from engine.prompting.verbalizer import Verbalizer

    mode = prompt_mode(loaded, params)
    templates = [Template.parse(text, mode) for text in params["templates"]]
    verbalizers = [Verbalizer.parse(spec) for spec in params["verbalizers"]]
    several = len(templates) * len(verbalizers) > 1
    return [PromptChoice(t, v, f"T{i + 1}·V{j + 1}" if several else "prompt")
            for i, t in enumerate(templates) for j, v in enumerate(verbalizers)]


def evaluation_settings(params: dict[str, Any]) -> Any:
    from engine.prompting.evaluate import EvaluationSettings

    return EvaluationSettings(k_shot=params["k_shot"], seed=params["seed"], selection=params["selection"],
                              calibrate=params["calibrate"], multi_token=params["multi_token"],
                              length_normalise=params["length_normalise"], limit=params.get("limit"))


def sentence_embedder(model: str = EMBEDDING_MODEL) -> Any:
    """Texts -> sentence vectors with the Embeddings tab's sentence model (for similar demonstrations)."""
    from engine.embeddings.sentence_embeddings import sentence_vectors
    from engine.progress import run_to_completion

    loaded = _load(model)
    return lambda texts: run_to_completion(sentence_vectors(loaded, texts, "model" if model == "minilm" else "mean"))


def prompt_eval_steps(loaded: Any, params: dict[str, Any], data: Any, *, embed: Any = None,
                      cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
    """The evaluation of ``params`` on ``data`` (a job generator returning an ``EvaluationResult``)."""
    from engine.prompting.evaluate import evaluate_prompts

    if params["k_shot"] and params["selection"] == "similar" and embed is None:
        embed = sentence_embedder()
    return (yield from evaluate_prompts(loaded, data, prompt_choices(loaded, params), evaluation_settings(params),
                                        embed=embed, where=params["data"], cancel=cancel))


def prompt_metrics(result: Any) -> dict[int, dict[str, float]]:
    """{prompt index: metrics} of an ``EvaluationResult``."""
    out = {}
    for i, evaluation in enumerate(result.prompts):
        values = {"accuracy": evaluation.raw.accuracy, "macro_f1": evaluation.raw.macro_f1}
        if evaluation.calibrated is not None:
            values |= {"calibrated_accuracy": evaluation.calibrated.accuracy,
                       "calibrated_macro_f1": evaluation.calibrated.macro_f1}
        out[i] = values
    return out


def result_file(run_id: int) -> Path:
    from workbench.paths import data_dir

    folder = data_dir() / "prompt-evals"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"run-{run_id}.json"


def record_prompt_eval(store: Any, params: dict[str, Any], result: Any, loaded: Any) -> int:
    """Write a finished evaluation as a ``prompt-eval`` run (metrics per prompt, the result as JSON)."""
    from workbench.runs.provenance import collect_provenance

    command = prompt_eval_command(params)
    run_id = store.create_run(PROMPT_EVAL_KIND, name=f"prompts on {Path(params['data']).name}",
                              model=params["model"], method=f"{params['k_shot']}-shot", params=params,
                              cli_command=command, status="running")
    store.start_run(run_id)
    for step, values in prompt_metrics(result).items():
        store.log_metrics(run_id, step, values, time=time.time())
    out = result_file(run_id)
    out.write_text(json.dumps(result.to_dict()), encoding="utf-8")
    store.add_artifact(run_id, "result", "json", out)
    info = loaded.info
    data_files = [str(resolve_data(params["data"]))]
    store.set_provenance(run_id, collect_provenance(device=info.device, dtype=info.dtype, seed=params["seed"],
                                                    model_folder=info.folder, data_files=data_files,
                                                    cli_command=command))
    store.finish_run(run_id, "finished")
    return run_id


def _load(model: str) -> Any:
    from engine.progress import run_to_completion
    from workbench.models.jobs import load_model_job
    from workbench.settings import load_settings

    return run_to_completion(load_model_job(model, load_settings(), NEVER_CANCELLED))


def prompt_eval_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's target (``workbench.prompting.runs:prompt_eval_job``): metrics per prompt."""
    from engine.progress import run_to_completion

    model, templates, verbalizers, data = (params.pop(k) for k in ("model", "templates", "verbalizers", "data"))
    params = prompt_eval_params(model, templates, verbalizers, data, **params)
    rows = read_prompt_data(params)
    loaded = _load(params["model"])
    result = run_to_completion(prompt_eval_steps(loaded, params, rows, cancel=ctx))
    for step, values in prompt_metrics(result).items():
        ctx.log_dict(step, values)
    return result.to_dict()

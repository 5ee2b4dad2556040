"""Prompt evaluations as runs: reading the labelled data, computing, and what a ``prompt-eval`` run records.

``PromptEvalRun`` is the ``ComputedRun`` of a ``PromptEvalSpec``: the CLI, the Prompting view (one run per row
of its comparison, ``lm_workbench.prompting.view_tasks``) and the long-run job all record it through
``lm_workbench.runs.execute``: one metrics row per prompt (step = the prompt's index), and the whole result as
a JSON artifact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, drive
from lm_workbench.prompting.spec import PromptEvalSpec
from lm_workbench.models.loader import load_model
from lm_workbench.runs.execute import ComputedRun, execute_in_lane
from lm_workbench.runs.kinds import RunKind, spec_command

PROMPT_EVAL = RunKind(kind="prompt-eval", target="lm_workbench.prompting.runs:prompt_eval_lane_job",
                      title="Prompt evaluation", command=spec_command(PromptEvalSpec))

EMBEDDING_MODEL = "minilm"  # the Embeddings tab's sentence model, for similar demonstrations


def resolve_data(data: str) -> Path:
    """A labelled file, or the example data of the installed prompt set named ``data`` (e.g. ``sentiment``)."""
    from lm_workbench.engine.data.hub_datasets import looks_like_dataset

    path = Path(data)
    if path.is_file() or looks_like_dataset(data):
        return path
    from lm_workbench.prompting.sets import example_data_path

    example = example_data_path(data)
    if example is not None:
        return example
    raise WorkbenchError(f"{data}: no such file (nor a prompt set with example data, e.g. sentiment or topic)")


def read_prompt_data(data: str, verbalizers: list[str], tsv_quoting: str = "auto") -> Any:
    """The labelled data ``data`` names, read and checked against the verbalizers (before a model loads);
    ``tsv_quoting``: how a .tsv file's quotes are read (``lm_workbench.engine.data.tsv_quoting``)."""
    from lm_workbench.engine.data.tasks import read_classification
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    path = resolve_data(data)
    rows = read_classification(path, tsv_quoting=tsv_quoting)
    for spec in verbalizers:
        Verbalizer.parse(spec).require_labels(rows.labels, str(path))
    return rows


def prompt_mode(loaded: Any, spec: PromptEvalSpec) -> str:
    """The template mode: as asked, or (auto) cloze for a masked LM and prefix for the other families."""
    from lm_workbench.engine.models.families import Family

    if spec.mode != "auto":
        return spec.mode
    return "cloze" if loaded.family is Family.ENCODER else "prefix"


def prompt_choices(loaded: Any, spec: PromptEvalSpec) -> list[Any]:
    """Every template with every verbalizer, named T1·V1, T1·V2, ... when there is more than one."""
    from lm_workbench.engine.prompting.verbalizer import Verbalizer
    from lm_workbench.engine.prompting.evaluate import PromptChoice
    from lm_workbench.engine.prompting.template import Template

    mode = prompt_mode(loaded, spec)
    templates = [Template.parse(text, mode) for text in spec.templates]
    verbalizers = [Verbalizer.parse(v) for v in spec.verbalizers]
    several = len(templates) * len(verbalizers) > 1
    return [PromptChoice(t, v, f"T{i + 1}·V{j + 1}" if several else "prompt")
            for i, t in enumerate(templates) for j, v in enumerate(verbalizers)]


def evaluation_settings(spec: PromptEvalSpec) -> Any:
    from lm_workbench.engine.prompting.evaluate import EvaluationSettings

    return EvaluationSettings(k_shot=spec.k_shot, seed=spec.seed, selection=spec.selection, calibrate=spec.calibrate,
                              multi_token=spec.multi_token, length_normalise=spec.length_normalise, limit=spec.limit,
                              keep_unseen_labels=spec.keep_unseen_labels)


def sentence_embedder(model: str = EMBEDDING_MODEL) -> Any:
    """Texts -> sentence vectors with the Embeddings tab's sentence model (for similar demonstrations)."""
    from lm_workbench.engine.embeddings.sentence_embeddings import sentence_vectors

    loaded = load_model(model)
    return lambda texts: drive(sentence_vectors(loaded, texts, "model" if model == "minilm" else "mean"))


class PromptEvalRun(ComputedRun):
    """Every prompt of the spec over its data (an ``EvaluationResult``)."""

    kind = PROMPT_EVAL.kind

    def read(self) -> Any:
        return read_prompt_data(self.spec.data, self.spec.verbalizers, self.spec.tsv_quoting)

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        from lm_workbench.engine.prompting.evaluate import evaluate_prompts

        spec = self.spec
        embed = sentence_embedder() if spec.k_shot and spec.selection == "similar" else None
        return (yield from evaluate_prompts(loaded, inputs, prompt_choices(loaded, spec), evaluation_settings(spec),
                                            embed=embed, where=spec.data, cancel=cancel))

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        """{prompt index: metrics}."""
        out = {}
        for i, evaluation in enumerate(result.prompts):
            values = {"accuracy": evaluation.raw.accuracy, "macro_f1": evaluation.raw.macro_f1}
            if evaluation.calibrated is not None:
                values |= {"calibrated_accuracy": evaluation.calibrated.accuracy,
                           "calibrated_macro_f1": evaluation.calibrated.macro_f1}
            out[i] = values
        return out

    def columns(self) -> dict[str, str]:
        spec = self.spec
        return {"name": f"prompts on {Path(spec.data).name}", "model": spec.model, "method": f"{spec.k_shot}-shot"}

    def data_files(self) -> list[str]:
        return [str(resolve_data(self.spec.data))]

    def record_files(self, store: Any, run_id: int, result: Any) -> None:
        self.record_json(store, run_id, "prompt-evals", result.to_dict())


def prompt_eval_lane_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's target (``lm_workbench.prompting.runs:prompt_eval_lane_job``): metrics per prompt."""
    return execute_in_lane(ctx, PromptEvalRun(PromptEvalSpec.from_dict(params).checked())).to_dict()

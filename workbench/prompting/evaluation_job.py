"""The jobs behind Evaluate and Accuracy against k: read the labelled file, run the engine, store the runs.

Each row of the comparison (one template with one verbalizer) is stored as its own ``prompt-eval`` run
(``lm_workbench.runs.execute.record``), so the run's spec (and the ``lm-workbench prompt-eval`` line it gives)
repeats exactly that row.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any, Callable

from lm_workbench.prompting.state import PromptingState


def _settings(state: PromptingState, calibrate: bool | None = None) -> Any:
    from lm_workbench.engine.prompting.evaluate import EvaluationSettings

    f = state.fewshot
    return EvaluationSettings(k_shot=f.k, seed=f.seed, selection=f.selection, order=f.order,
                              calibrate=state.calibrate if calibrate is None else calibrate,
                              multi_token=state.multi_token, length_normalise=state.length_normalise,
                              separator=f.separator)


def embedder(k: int, selection: str) -> Any:
    """The Embeddings tab's sentence model, when demonstrations are chosen by similarity (else None)."""
    if k and selection == "similar":
        from lm_workbench.prompting.runs import sentence_embedder

        return sentence_embedder()
    return None


def read_data(path: str, verbalizers: list[str]) -> Any:
    """The labelled file, checked against every verbalizer (a label it does not cover is an error)."""
    from lm_workbench.prompting.runs import read_prompt_data

    return read_prompt_data(path, verbalizers)


def evaluation_job(loaded: Any, state: PromptingState, store_path: Path) -> Callable[[Any], Any]:
    """``fn(cancel)`` evaluating every prompt of the comparison over the state's file.

    Yields progress and ``Partial((row, PromptEvaluation))`` as each prompt finishes; returns
    ``(EvaluationResult, [run id per row], ReadReport of the file)``. Bad templates or verbalizers raise here,
    before the job starts.
    """
    from lm_workbench.engine.progress import Partial, relay
    from lm_workbench.engine.prompting.evaluate import PromptChoice, evaluate_prompts
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer
    from lm_workbench.prompting.spec import PromptEvalSpec

    pairs = state.prompts_to_evaluate()
    prompts = [PromptChoice(Template.parse(t, state.mode), Verbalizer.parse(v), f"prompt {i + 1}")
               for i, (t, v) in enumerate(pairs)]
    settings = _settings(state)
    path, model = state.data_path, loaded.info.spec
    specs = [PromptEvalSpec(model, [t], [v], path, mode=state.mode, k_shot=settings.k_shot, seed=settings.seed,
                            selection=settings.selection, calibrate=settings.calibrate,
                            multi_token=settings.multi_token, length_normalise=settings.length_normalise).checked()
             for t, v in pairs]

    def job(cancel: Any):
        data = read_data(path, [v for _, v in pairs])
        embed = embedder(settings.k_shot, settings.selection)
        rows = count()

        def numbered(report: Any) -> Any:  # a finished prompt's evaluation, with its row
            return Partial((next(rows), report.value)) if isinstance(report, Partial) else report

        result = yield from relay(evaluate_prompts(loaded, data, prompts, settings, embed=embed,
                                                   where=Path(path).name, cancel=cancel), numbered)
        return result, record_rows(store_path, loaded, specs, result), data.report

    return job


def record_rows(store_path: Path, loaded: Any, specs: list[Any], result: Any) -> list[int]:
    """Store each prompt's evaluation as its own ``prompt-eval`` run; their ids, in row order."""
    from lm_workbench.prompting.runs import PromptEvalRun
    from lm_workbench.runs.execute import record
    from lm_workbench.store import RunStore

    with RunStore(store_path) as store:
        return [record(store, PromptEvalRun(spec), replace(result, prompts=[evaluation]), loaded)
                for spec, evaluation in zip(specs, result.prompts)]


def accuracy_vs_k_job(loaded: Any, state: PromptingState, ks: list[int], seeds: list[int]) -> Callable[[Any], Any]:
    """``fn(cancel)``: accuracy against k for the current prompt, a ``Partial(KPoint)`` per k."""
    from lm_workbench.engine.prompting.evaluate import PromptChoice, accuracy_vs_k
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    prompt = PromptChoice(Template.parse(state.template, state.mode), Verbalizer.parse(state.verbalizer))
    settings = _settings(state, calibrate=False)
    path, verbalizer = state.data_path, state.verbalizer

    def job(cancel: Any):
        data = read_data(path, [verbalizer])
        return (yield from accuracy_vs_k(loaded, data, prompt, ks, seeds, settings,
                                         embed=embedder(max(ks), settings.selection), cancel=cancel))

    return job

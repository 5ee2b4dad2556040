"""The jobs behind Evaluate and Accuracy against k: read the labelled file, run the engine, store the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from workbench.state.prompting import PromptingState


def _settings(state: PromptingState, calibrate: bool | None = None) -> Any:
    from engine.prompting.evaluate import EvaluationSettings

    f = state.fewshot
    return EvaluationSettings(k_shot=f.k, seed=f.seed, selection=f.selection, order=f.order,
                              calibrate=state.calibrate if calibrate is None else calibrate,
                              multi_token=state.multi_token, length_normalise=state.length_normalise,
                              separator=f.separator)


def _embed(loaded: Any) -> Callable[[list[str]], Any]:
    """Sentence vectors of the loaded model (mean of the last layer), for similar demonstrations."""
    from engine.embeddings.sentence_embeddings import sentence_vectors

    return lambda texts: sentence_vectors(loaded, texts)


def read_data(path: str) -> Any:
    from engine.finetune.data import read_classification

    return read_classification(path)


def evaluation_job(loaded: Any, state: PromptingState, store_path: Path) -> Callable[[Any], Any]:
    """``fn(cancel)`` evaluating every prompt of the comparison over the state's file.

    Yields progress and ``Partial((row, PromptEvaluation))`` as each prompt finishes; returns
    ``(EvaluationResult, run id)``. Bad templates or verbalizers raise here, before the job starts.
    """
    from engine.prompting.evaluate import PromptChoice, evaluate_prompts
    from engine.prompting.template import Template
    from engine.prompting.verbalizer import Verbalizer

    prompts = [PromptChoice(Template.parse(t, state.mode), Verbalizer.parse(v), f"prompt {i + 1}")
               for i, (t, v) in enumerate(state.prompts_to_evaluate())]
    settings = _settings(state)
    path = state.data_path

    def job(cancel: Any):
        from engine.progress import Partial

        data = read_data(path)
        steps = evaluate_prompts(loaded, data, prompts, settings, embed=_embed(loaded), where=Path(path).name,
                                 cancel=cancel)
        row = 0
        while True:
            try:
                report = next(steps)
            except StopIteration as stop:
                result = stop.value
                break
            if isinstance(report, Partial):
                yield Partial((row, report.value))
                row += 1
            else:
                yield report
        return result, record_evaluation(store_path, loaded, path, result)

    return job


def record_evaluation(store_path: Path, loaded: Any, data_path: str, result: Any) -> int | None:
    """Store the evaluation as a run (kind ``prompt-eval``); its id."""
    from workbench.prompting.runs import record_prompt_eval
    from workbench.store import RunStore

    with RunStore(store_path) as store:
        return record_prompt_eval(store, loaded, data_path, result)


def accuracy_vs_k_job(loaded: Any, state: PromptingState, ks: list[int], seeds: list[int]) -> Callable[[Any], Any]:
    """``fn(cancel)``: accuracy against k for the current prompt, a ``Partial(KPoint)`` per k."""
    from engine.prompting.evaluate import PromptChoice, accuracy_vs_k
    from engine.prompting.template import Template
    from engine.prompting.verbalizer import Verbalizer

    prompt = PromptChoice(Template.parse(state.template, state.mode), Verbalizer.parse(state.verbalizer))
    settings = _settings(state, calibrate=False)
    path = state.data_path

    def job(cancel: Any):
        data = read_data(path)
        return (yield from accuracy_vs_k(loaded, data, prompt, ks, seeds, settings, embed=_embed(loaded),
                                         cancel=cancel))

    return job

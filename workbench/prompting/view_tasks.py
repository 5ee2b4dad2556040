"""The Prompting tab's jobs (``fn(cancel)`` for the view's job bridge): scoring one input through the prompt,
choosing the few-shot demonstrations for it, generating a continuation. Explain's job is
``lm_workbench.attribution.view_tasks.prompt_label_job``.

Evaluate and Accuracy against k (``evaluation_job``, ``accuracy_vs_k_job``): read the labelled file, run the engine, store the runs.

Each row of the comparison (one template with one verbalizer) is stored as its own ``prompt-eval`` run
(``lm_workbench.runs.execute.record``), so the run's spec (and the ``lm-workbench prompt-eval`` line it gives)
repeats exactly that row.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any, Callable

from lm_workbench.prompting.state import GenerationSettings, PromptingState


def scoring_job(loaded: Any, state: PromptingState) -> Callable[[Any], Any]:
    """``fn(cancel)`` scoring the state's input with its prompt (and its few-shot demonstrations, if any).

    Returns ``(ScoredPrompt, calibrated label probabilities or None)``: with Calibrate on, the content-free
    inputs are scored in this same prompt (same demonstrations, same order), so p_cf follows every change."""
    from lm_workbench.engine.prompting.calibration import calibrate, content_free_probs
    from lm_workbench.engine.prompting.scoring import score_example
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    template = Template.parse(state.template, state.mode)
    verbalizer = Verbalizer.parse(state.verbalizer)
    x, x2 = state.x, (state.x2 or None) if template.is_pair else None
    demonstrations = list(state.fewshot.demonstrations) if state.fewshot.k else []
    options = dict(multi_token=state.multi_token, length_normalise=state.length_normalise,
                   separator=state.fewshot.separator)
    top_k, calibrated = state.top_k, state.calibrate

    def job(cancel: Any):
        cancel.check()
        scored = score_example(loaded, template, verbalizer, x, x2, demonstrations, top_k=top_k, **options)
        if not calibrated:
            return scored, None
        cancel.check()
        p_cf = content_free_probs(loaded, template, verbalizer, demonstrations, **options)
        return scored, [float(q) for q in calibrate(scored.label_probs, p_cf)]

    return job


def build_prompt_job(state: PromptingState) -> Callable[[Any], Any]:
    """``fn(cancel)`` choosing the demonstrations for the current input; returns (full prompt, demonstrations)."""
    from lm_workbench.engine.prompting.evaluate import demonstrations_of
    from lm_workbench.engine.prompting.fewshot import choose_demonstrations, cosine_to, full_prompt
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    template = Template.parse(state.template, state.mode)
    verbalizer = Verbalizer.parse(state.verbalizer)
    f, x, x2 = replace(state.fewshot), state.x, (state.x2 or None) if template.is_pair else None
    path, spec = state.data_path, state.verbalizer

    def job(cancel: Any):
        data = read_data(path, [spec])
        pool = demonstrations_of(data)
        similarities = None
        embed = embedder(f.k, f.selection)
        if embed is not None:
            vectors = embed([x if x2 is None else f"{x} {x2}"] + [d.x if d.x2 is None else f"{d.x} {d.x2}"
                                                                   for d in pool])
            similarities = cosine_to(vectors[0], vectors[1:])
        cancel.check()
        chosen = choose_demonstrations(pool, f.k, selection=f.selection, seed=f.seed, labels=verbalizer.labels,
                                       order=f.order, similarities=similarities)
        demos = [pool[i] for i in chosen]
        return full_prompt(template, verbalizer, demos, x, x2, f.separator), demos

    return job


def generation_job(loaded: Any, prompt: str, settings: GenerationSettings) -> Callable[[Any], Any]:
    """``fn(cancel)``: yields ``Partial(GeneratedToken)`` per new token; returns the ``Generation``."""
    from lm_workbench.engine.decoding import SamplingConfig
    from lm_workbench.engine.prompting.generation import generate_job

    sampling = None if settings.greedy else SamplingConfig(temperature=settings.temperature, top_k=settings.top_k,
                                                             top_p=settings.top_p, seed=settings.seed)

    def job(cancel: Any):
        return (yield from generate_job(loaded, prompt, max_new_tokens=settings.max_new_tokens, sampling=sampling,
                                          stop=settings.stop, cancel=cancel))

    return job


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

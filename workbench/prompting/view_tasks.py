"""The Prompting tab's jobs (``fn(cancel)`` for the view's job bridge): scoring one input through the prompt,
choosing the few-shot demonstrations for it, generating a continuation. Explain's job is
``lm_workbench.attribution.view_tasks.prompt_label_job``."""

from __future__ import annotations

from dataclasses import replace
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
    from lm_workbench.prompting.evaluation_job import embedder, read_data

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

"""The "why" commands computed for both front ends: ``lens`` (the logit lens, and the tuned lens beside it),
``dla``, ``attribute``, ``ablate``, ``generate`` (and ``--chat``) and ``patch`` (exact, or attribution patching).
Each takes the typed request and the ``LoadedModel`` and returns a result whose ``to_dict()`` is the ``--json``
payload and whose ``engine_result`` is the engine's object (the CLI prints its table from it). ``check_*`` run the checks that come
before the model loads. Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.command_results.checks import note_window, positive_k
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for
from lm_workbench.engine.errors import WorkbenchError


def lens(request: Any, loaded: Any) -> Result:
    """The logit lens: every layer's top-``k`` tokens at every position (Nostalgebraist 2020); with ``tuned`` (a
    translators folder, or "" for the one trained for this model) the tuned lens beside it (Belrose et al. 2023):
    ``tuned``, ``kl_logit`` and ``kl_tuned`` (KL to the output per layer, nats) and ``tuned_folder`` added.
    Errors: ``k`` under 1; no tuned lens for the model; translators of another shape."""
    from lm_workbench.engine.lens.logit import logit_lens

    if request.tuned is not None:
        return _tuned_lens(request, loaded)
    table = logit_lens(loaded, request.text, target=request.target, k=positive_k(request.k))
    note_window(table.notes)
    return result_for("lens", as_json(table.to_dict()), engine_result=table)


def _tuned_lens(request: Any, loaded: Any) -> Result:
    from lm_workbench.engine.lens.tuned.lens import read_both
    from lm_workbench.engine.lens.tuned.translators import load_translators
    from lm_workbench.lens.files import find_translators

    k = positive_k(request.k)
    folder = request.tuned or find_translators(loaded.info.folder)
    if folder is None:
        raise WorkbenchError(f"no tuned lens for {request.model} yet: train one with 'lm-workbench tuned-lens "
                             f"{request.model} --corpus FILE', or name its folder after --tuned")
    translators = load_translators(folder, count=loaded.info.layers, hidden=loaded.info.hidden_size)
    both = read_both(loaded, request.text, translators, target=request.target, k=k)
    note_window(both.logit.notes)
    return result_for("lens", as_json(both.logit.to_dict() | both.to_dict() | {"tuned_folder": str(folder)}),
                      engine_result=both)


def dla(request: Any, loaded: Any) -> Result:
    """Direct logit attribution: the logit (difference) split into embeddings, heads and MLPs (Elhage et al.
    2021); ``attn`` [layers, heads], ``mlp`` [layers]."""
    from lm_workbench.engine.heads.dla import direct_logit_attribution

    result = direct_logit_attribution(loaded, request.text, request.target, request.contrast,
                                      request.output_position)
    note_window(result.notes)
    return result_for("dla", as_json(result.to_dict()), engine_result=result)


def check_attribute(request: Any) -> None:
    """Rollout and flow refuse a contrast (before the model loads)."""
    from lm_workbench.engine.attribution.attribute import check_method

    check_method(request.method, request.contrast)


def attribute(request: Any, loaded: Any) -> Result:
    """Which input tokens a prediction rests on: one score per token (``method``: gradient × input, integrated
    gradients (Sundararajan et al. 2017), attention rollout / flow (Abnar & Zuidema 2020)...); with
    ``attention_layer``, that layer's attention at the predicted position too."""
    from lm_workbench.command_results.driving import drive_quietly

    check_attribute(request)
    attention = None
    if request.attention_layer is None:
        from lm_workbench.engine.attribution.attribute import attribute_job

        result = drive_quietly(attribute_job(loaded, request.text, request.method, request.target, request.steps,
                                             output_position=request.output_position, contrast=request.contrast))
    else:
        from lm_workbench.attribution.attention import attribute_with_attention_job

        result, attention = drive_quietly(attribute_with_attention_job(
            loaded, request.text, request.method, request.target, request.steps, request.output_position,
            request.attention_layer, contrast=request.contrast))
    note_window(result.notes)
    data = result.to_dict() if attention is None else result.to_dict() | {"attention": attention}
    return result_for("attribute", as_json(data), engine_result=(result, attention))


def check_ablate(request: Any) -> tuple[list, list, Any]:
    """What to ablate, checked before the model loads: (heads, mlps, corpus texts or None)."""
    from lm_workbench.engine.heads.names import parse_heads, parse_layers

    if not request.heads and not request.all_heads and not request.mlps:
        raise WorkbenchError("name what to ablate: --heads L.H,..., --all-heads or --mlps L,...")
    if request.all_heads and request.mlps:
        raise WorkbenchError("--all-heads sweeps the heads one at a time: it takes no --mlps")
    if request.how != "zero" and not request.corpus:
        raise WorkbenchError(f"--how {request.how} reads a corpus: name one with --corpus F (a text file, one "
                             "text a line)")
    try:
        heads = parse_heads(request.heads) if request.heads else []
        mlps = parse_layers(request.mlps) if request.mlps else []
    except ValueError as exc:
        raise WorkbenchError(str(exc)) from None
    corpus = None
    if request.how != "zero":
        from lm_workbench.heads.corpus_file import read_corpus

        corpus = read_corpus(request.corpus)
    return heads, mlps, corpus


def ablate(request: Any, loaded: Any, *, quiet: bool = True) -> Result:
    """Heads or MLPs taken out (zero, mean or resample ablation; Wang et al. 2022) and the logit (difference)
    again; ``all_heads``: each head alone, ``ablated_metric`` [rows, heads]."""
    from lm_workbench.command_results.driving import drive_quietly
    from lm_workbench.engine.heads.ablation import ablate_job, head_sweep_job

    heads, mlps, corpus = check_ablate(request)
    common = dict(how=request.how, corpus=corpus, output_position=request.output_position, seed=request.seed)
    if request.all_heads:
        steps = head_sweep_job(loaded, request.text, request.target, request.contrast, **common)
    else:
        steps = ablate_job(loaded, request.text, request.target, request.contrast, heads=heads, mlps=mlps, **common)
    result = drive_quietly(steps, quiet=quiet)
    note_window(result.notes)
    return result_for("ablate", as_json(result.to_dict()), engine_result=result)


def sampling_of(request: Any) -> Any:
    """``generate``'s sampling (a ``SamplingConfig``), or None for greedy decoding; ``--greedy`` with a sampling
    option is refused."""
    from lm_workbench.engine.decoding import SamplingConfig

    flags = [f for f, v in (("--temperature", request.temperature), ("--top-k", request.top_k),
                            ("--top-p", request.top_p)) if v is not None]
    if request.greedy and flags:
        raise WorkbenchError(f"--greedy takes no {flags[0]}: choose greedy decoding or sampling")
    if not flags:
        return None
    return SamplingConfig(temperature=1.0 if request.temperature is None else request.temperature,
                          top_k=request.top_k or 0, top_p=1.0 if request.top_p is None else request.top_p,
                          seed=request.seed)


def check_generate(request: Any) -> Any:
    """``generate``'s checks before the model loads; the sampling (None: greedy)."""
    sampling = sampling_of(request)
    if request.max_new_tokens < 1:
        raise WorkbenchError(f"--max-new-tokens must be at least 1, not {request.max_new_tokens}")
    if request.template and not request.chat:
        raise WorkbenchError("--template goes with --chat")
    return sampling


def generate(request: Any, loaded: Any, *, load: Callable[[], Any] | None = None) -> Result:
    """Text generated after the prompt (greedy, or sampled with temperature / top-k / top-p; Holtzman et al.
    2020): ``text``, its ``tokens`` with their probabilities, ``stopped_by``. With ``chat``: the text answered
    through a chat template (an instruct run's own, the tokenizer's, or ``template``): ``text``, ``note`` and the
    prompt as the model read it. ``load`` gives the model when ``loaded`` is None (the CLI loads it only when the
    spec is not an instruct run's folder, which opens itself)."""
    from lm_workbench.command_results.driving import drive_quietly
    from lm_workbench.engine.prompting.generation import check_generation, generate_job

    sampling = check_generate(request)
    model: Callable[[], Any] = (lambda: loaded) if loaded is not None else load  # type: ignore[assignment]
    if request.chat:
        from lm_workbench.instruct.chat import chat_reply, open_chat_model

        if request.stop:
            raise WorkbenchError("--stop does not go with --chat (the answer ends at the model's end token)")
        chat = open_chat_model(request.model, model, request.template)
        return result_for("generate", as_json(chat_reply(chat, request.text, max_new_tokens=request.max_new_tokens,
                                                         sampling=sampling)))
    loaded = model()
    check_generation(loaded, request.max_new_tokens, sampling)
    result = drive_quietly(generate_job(loaded, request.text, max_new_tokens=request.max_new_tokens,
                                        sampling=sampling, stop=request.stop))
    return result_for("generate", as_json(result.to_dict()), engine_result=result)


def patch(request: Any, loaded: Any) -> Result:
    """Activation patching (causal tracing; Meng et al. 2022): each layer's activation at each position restored
    from the clean run into the corrupted one; ``effect`` [layers, positions], the recovered fraction of the
    metric. With ``approx`` (or ``compare_exact``): attribution patching (Nanda 2023; Syed et al. 2023), the
    gradient approximation from one forward and one backward pass, ``method: "attribution"``; ``compare_exact``
    adds the exact sweep (``exact``), ``pearson`` and the largest disagreements. ``engine_result``: the sweep, or
    (approximate, exact, comparison) with ``approx``."""
    from lm_workbench.command_results.driving import drive_quietly
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.patching.view_tasks import patching_sweep

    if request.approx or request.compare_exact:
        return _attribution_patch(request, loaded)
    result = drive_quietly(patching_sweep(loaded, request, NEVER_CANCELLED))
    note_window(result.notes)
    return result_for("patch", as_json(result.to_dict()), engine_result=result)


def _attribution_patch(request: Any, loaded: Any) -> Result:
    from lm_workbench.command_results.driving import drive_quietly
    from lm_workbench.engine.patching.attribution_patching import METHOD
    from lm_workbench.engine.patching.comparison import compare
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.patching.view_tasks import attribution_sweep, patching_sweep

    approx = drive_quietly(attribution_sweep(loaded, request, NEVER_CANCELLED))
    note_window(approx.notes)
    data = {**approx.to_dict(), "method": METHOD}
    exact = comparison = None
    if request.compare_exact:
        exact = drive_quietly(patching_sweep(loaded, request, NEVER_CANCELLED))
        comparison = compare(approx.effect, exact.effect, approx.tokens)
        data.update({"exact": exact.to_dict(), **comparison.to_dict()})
    return result_for("patch", as_json(data), engine_result=(approx, exact, comparison))

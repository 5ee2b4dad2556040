"""The recorded evaluation runs computed for both front ends: ``probe`` (a linear probe per layer against a
control task, Hewitt & Liang 2019), ``sts`` (Spearman's rho of cosine similarities per layer, Reimers & Gurevych
2019), ``scalar-mix`` (ELMo's softmax-normalised layer weights and gamma, Peters et al. 2018), ``prompt-eval``
(cloze prompts with a verbalizer, zero- or few-shot, with contextual calibration, Zhao et al. 2021) and
``retrieval-eval`` (nDCG@10, MRR@10, recall@k against BM25, BEIR's measures), and ``retrieve`` (not recorded).
Each reads its
file, runs on the loaded model, records the run in the store and returns a result whose ``to_dict()`` is the
``--json`` payload (``run_id`` included; an undefined score is null, never NaN). The CLI's handler reads the file
before the model loads (``inputs``) and prints the result; the Python API returns it. Errors: ``WorkbenchError``
with the CLI's line (a file that cannot be read, a task the model cannot do).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.checks import note, say_read_report
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.driving import drive_quietly
from lm_workbench.command_results.results import Result, result_for


def _task_columns(request: Any) -> dict[str, Any]:
    return {"tag_column": request.tag_column, "text_column": request.text_column,
            "label_column": request.label_column, "tsv_quoting": request.tsv_quoting}


def probe_spec(request: Any) -> Any:
    """The checked ``ProbeSpec`` of a ``probe`` request (or command line: the same names)."""
    from lm_workbench.probing.spec import ProbeSpec

    return ProbeSpec(request.model, request.task, request.kind, request.pooling, request.seed,
                     **_task_columns(request)).checked()


def sts_spec(request: Any) -> Any:
    """The checked ``StsSpec`` of an ``sts`` request (or command line)."""
    from lm_workbench.probing.spec import StsSpec

    return StsSpec(request.model, request.data, request.pooling, request.columns, request.tsv_quoting).checked()


def scalar_mix_spec(request: Any) -> Any:
    """The checked ``ScalarMixSpec`` of a ``scalar-mix`` request (or command line)."""
    from lm_workbench.probing.spec import ScalarMixSpec

    return ScalarMixSpec(request.model, request.task, request.kind, request.pooling, request.seed, request.steps,
                         **_task_columns(request)).checked()


def prompt_eval_spec(request: Any) -> Any:
    """The checked ``PromptEvalSpec`` of a ``prompt-eval`` request (or command line)."""
    from lm_workbench.prompting.spec import PromptEvalSpec

    return PromptEvalSpec(request.model, request.template, request.verbalizer, request.data, mode=request.mode,
                          k_shot=request.k_shot, seed=request.seed, selection=request.selection,
                          calibrate=request.calibrate, multi_token=request.multi_token,
                          length_normalise=request.length_normalise, limit=request.limit,
                          tsv_quoting=request.tsv_quoting, keep_unseen_labels=request.keep_unseen_labels).checked()


def retrieval_eval_spec(request: Any) -> Any:
    """The checked ``RetrievalEvalSpec`` of a ``retrieval-eval`` request (or command line)."""
    from lm_workbench.command_results.checks import positive_k
    from lm_workbench.retrieval.spec import RetrievalEvalSpec

    return RetrievalEvalSpec(request.model, request.data, request.split, positive_k(request.k), request.pooling,
                             request.bm25, request.bm25_k1, request.bm25_b, request.bm25_method,
                             request.keep_identical_ids).checked()


def _recorded(run: Any, loaded: Any, inputs: Any, quiet: bool) -> tuple[Any, int]:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.execute import execute

    if inputs is None:
        inputs = run.read()
        say_read_report(getattr(inputs, "report", None), True)
    return drive_quietly(execute(run, loaded, runs_db_path(), inputs=inputs), quiet=quiet)


def probe(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """A probe per layer: ``layers``, ``accuracy``, ``control_accuracy``, ``selectivity`` (accuracy minus
    control; fractions in [0, 1]), ``majority``, ``train_size``, ``test_size``, ``run_id``. ``run``/``inputs``: the
    ``ProbeRun`` and its read file when the caller read them already."""
    from lm_workbench.probing.runs import ProbeRun, nan_as_null

    result, run_id = _recorded(run or ProbeRun(probe_spec(request)), loaded, inputs, quiet)
    if result.left_out:
        note(f"{result.left_out} word(s) beyond the model's window were left out")
    for line in result.notes:
        note(line)
    data = {k: nan_as_null(v) for k, v in {**result.to_json(), "run_id": run_id}.items()}
    return result_for("probe", as_json(data), engine_result=result)


def sts(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """Spearman's rho per layer: ``layers``, ``spearman`` (in [-1, 1]; null where undefined), ``pooling``,
    ``pairs``, ``run_id``."""
    from lm_workbench.probing.runs import StsRun, nan_as_null

    result, run_id = _recorded(run or StsRun(sts_spec(request)), loaded, inputs, quiet)
    for line in result.notes:
        note(line)
    data = {k: nan_as_null(v) for k, v in {**result.to_json(), "run_id": run_id}.items()}
    return result_for("sts", as_json(data), engine_result=result)


def scalar_mix(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """ELMo's scalar mix learnt for a task: ``weights`` per layer (softmax, sum 1), ``gamma``, ``expected_layer``,
    held-out ``accuracy``, ``run_id``."""
    from lm_workbench.probing.scalar_mix_runs import ScalarMixRun

    mix, run_id = _recorded(run or ScalarMixRun(scalar_mix_spec(request)), loaded, inputs, quiet)
    return result_for("scalar-mix", as_json({**mix.to_json(), "run_id": run_id}), engine_result=mix)


def prompt_eval(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """The first prompt's ``labels``, ``accuracy``, ``macro_f1`` (fractions) and ``confusion_matrix`` [gold,
    predicted] (with ``calibrate``: the calibrated ones and ``p_cf``), every prompt's evaluation
    (``EvaluationResult.to_dict``), ``small_model`` (a note when the model is too small to read, else null) and
    ``run_id``. Demonstrations that did not fit the window are said on stderr."""
    from lm_workbench.engine.prompting.model_check import small_model_note
    from lm_workbench.prompting.runs import PromptEvalRun

    result, run_id = _recorded(run or PromptEvalRun(prompt_eval_spec(request)), loaded, inputs, quiet)
    first = result.prompts[0]
    small = small_model_note(loaded, len(first.labels))
    for line in result.notes:
        note(line)
    for evaluation in result.prompts:
        if evaluation.dropped:
            dropped = sorted({d + 1 for ds in evaluation.dropped.values() for d in ds})
            note(f"{evaluation.name}: demonstration(s) {', '.join(map(str, dropped))} (example numbers in the data) "
                 f"did not fit the model's window for {len(evaluation.dropped)} example(s) and were left out there")
    data: dict[str, Any] = {"labels": first.labels, "accuracy": first.raw.accuracy, "macro_f1": first.raw.macro_f1,
                            "confusion_matrix": first.raw.confusion}
    if first.calibrated is not None:
        data |= {"calibrated_accuracy": first.calibrated.accuracy, "calibrated_macro_f1": first.calibrated.macro_f1,
                 "calibrated_confusion_matrix": first.calibrated.confusion, "p_cf": first.p_cf}
    data |= result.to_dict() | {"small_model": small, "run_id": run_id}
    return result_for("prompt-eval", as_json(data), engine_result=result)


def retrieval_eval(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """The model's (and with ``bm25`` BM25's) mean ``ndcg@10``, ``mrr@10``, ``recall@k`` over the queries, per-query
    scores, ``pooling``, ``run_id`` (``EvalResult.to_json``)."""
    from lm_workbench.retrieval.runs import RetrievalEvalRun

    result, run_id = _recorded(run or RetrievalEvalRun(retrieval_eval_spec(request)), loaded, inputs, quiet)
    for line in result.notes:
        note(line)
    return result_for("retrieval-eval", as_json({**result.to_json(), "run_id": run_id}), engine_result=result)


def check_retrieve(request: Any) -> None:
    """``k`` at least 1 and a query that is not empty (before the model loads)."""
    from lm_workbench.command_results.checks import positive_k
    from lm_workbench.engine.errors import WorkbenchError

    positive_k(request.k)
    if not request.query.strip():
        raise WorkbenchError("--query is empty")


def read_retrieval_corpus(request: Any) -> Any:
    """The passages ``request.corpus`` names (a file or a built-in name), read."""
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.retrieval import view_tasks

    return view_tasks.read_corpus(request.corpus, NEVER_CANCELLED, request.tsv_quoting)[0]


def retrieve(request: Any, loaded: Any, *, corpus: Any = None, listener: Any = None) -> Result:
    """The ``k`` passages nearest the query by cosine of pooled vectors (dense retrieval, Karpukhin et al. 2020):
    ``query``, ``results`` (rank, id, score in [-1, 1], text), ``pooling`` (the request's, else the model's
    default). Not a recorded run. ``corpus``: already read; ``listener``: the indexing's progress too."""
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.retrieval import view_tasks
    from lm_workbench.retrieval.defaults import default_pooling

    check_retrieve(request)
    corpus = corpus if corpus is not None else read_retrieval_corpus(request)
    pooling = request.pooling or default_pooling(loaded)
    dense = drive_quietly(view_tasks.index(loaded, corpus, pooling, NEVER_CANCELLED), listener=listener)
    for line in dense.notes:
        note(line)
    hits = view_tasks.search(loaded, dense, request.query, request.k, NEVER_CANCELLED)
    say_read_report(corpus.report, True)  # rows skipped or changed: said (the CLI says the rest after the search)
    data = {"query": request.query, "results": [h.to_json() for h in hits], "pooling": pooling}
    return result_for("retrieve", as_json(data), engine_result=(corpus, hits))

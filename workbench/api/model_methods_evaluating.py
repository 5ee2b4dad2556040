"""``Model``'s evaluating commands: one method per command that reads one model.

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests
from lm_workbench.api import functions_training as _functions_training


class EvaluatingCommands:
    """One group of the one-model commands as methods; ``Model`` supplies ``_run(request_class, arguments)``."""

    def probe(
            self,
            *,
            task: str,
            kind: str,
            tag_column: int | None = None,
            text_column: str | None = None,
            label_column: str | None = None,
            tsv_quoting: str = "auto",
            pooling: str = "mean",
            seed: int = 0,
    ) -> Any:
        """``lm-workbench probe``: layer-wise linear probes with the Hewitt & Liang control task."""
        return self._run(_requests.ProbeRequest, locals())

    def sts(
            self,
            *,
            data: str,
            columns: str | None = None,
            tsv_quoting: str = "auto",
            pooling: str = "mean",
    ) -> Any:
        """``lm-workbench sts``: sentence similarity per layer: Spearman's rho of cosines vs gold scores."""
        return self._run(_requests.StsRequest, locals())

    def prompt_eval(
            self,
            *,
            template: tuple[str, ...],
            verbalizer: tuple[str, ...],
            data: str,
            tsv_quoting: str = "auto",
            mode: str = "auto",
            k_shot: int = 0,
            selection: str = "random",
            seed: int = 0,
            calibrate: bool = False,
            multi_token: str = "left-to-right",
            length_normalise: bool = False,
            limit: int | None = None,
            keep_unseen_labels: bool = False,
    ) -> Any:
        """``lm-workbench prompt-eval``: evaluate cloze or prefix prompts with a verbalizer on labelled data."""
        return self._run(_requests.PromptEvalRequest, locals())

    # ``m.finetune(...)`` is ``lm_workbench.finetune(m, ...)``: the function, bound to the model
    finetune = _functions_training.finetune

    def retrieve(
            self,
            *,
            corpus: str,
            tsv_quoting: str = "auto",
            query: str,
            k: int = 10,
            pooling: str | None = None,
    ) -> Any:
        """``lm-workbench retrieve``: the passages of a corpus nearest to a query (sentence-encoder search)."""
        return self._run(_requests.RetrieveRequest, locals())

    def retrieval_eval(
            self,
            *,
            data: str,
            split: str = "test",
            k: int = 10,
            pooling: str | None = None,
            bm25: bool = False,
            bm25_k1: float = 1.5,
            bm25_b: float = 0.75,
            bm25_method: str = "lucene",
            keep_identical_ids: bool = False,
    ) -> Any:
        """``lm-workbench retrieval-eval``: nDCG@10, MRR@10, Recall@1/10/100 on a BEIR folder (and BM25's)."""
        return self._run(_requests.RetrievalEvalRequest, locals())

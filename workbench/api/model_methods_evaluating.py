"""``Model``'s evaluating commands: one method per command that reads one model.

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests


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

    def finetune(
            self,
            *,
            task: str | None = None,
            train: str | None = None,
            validation: str | None = None,
            method: str | None = None,
            method_settings: dict[str, Any] | tuple[tuple[str, Any], ...] = (),
            epochs: float | None = None,
            out: str | None = None,
            lr: float | None = None,
            batch_size: int | None = None,
            max_length: int | None = None,
            seed: int | None = None,
            text_columns: str | None = None,
            loss: str | None = None,
            pooling: str | None = None,
            margin: float | None = None,
            template: str | None = None,
            beta: float | None = None,
            tsv_quoting: str | None = None,
            keep_unseen_labels: bool | None = None,
            train_setting: tuple[str, ...] = (),
            resume: str | None = None,
    ) -> Any:
        """``lm-workbench finetune``: fine-tune a model on a task with a method (full, LoRA, adapters, ...).
        ``method_settings``: the method's own settings, setting name -> value, as the CLI's ``--<method>-<setting>``
        options give them (``lm-workbench finetune --help`` lists them), e.g. ``method="lora",
        method_settings={"rank": 4, "alpha": 8}`` is ``--method lora --lora-rank 4 --lora-alpha 8``; refused with
        the CLI's line when a name is no setting of the method (the nearest one named, or the methods it belongs to)
        or a value has the wrong type or is out of range. The built-in methods' settings, name (kind, default):
        bitfit: none; dora: rank (int, 8), alpha (float, 16.0), dropout (float, 0.1), target_modules (str,
        'query,value'); features: pooling (str, 'mean'), dropout (float, 0.1); full: freeze_embeddings (bool,
        False); houlsby: reduction_factor (int, 16), non_linearity (str, 'relu'), init_scale (float, 0.001),
        train_layer_norms (bool, True); ia3: target_modules (str, 'key,value'), feedforward (bool, True); loha: rank
        (int, 8), alpha (float, 8.0), target_modules (str, 'query,value'); lokr: rank (int, 8), alpha (float, 8.0),
        target_modules (str, 'query,value'), decompose_factor (int, -1); lora: rank (int, 8), alpha (float, 16.0),
        dropout (float, 0.1), target_modules (str, 'query,value'); mam: prefix_length (int, 30), ffn_bottleneck
        (int, 512), scale (float, 4.0), prefix_projection (bool, True), encoder_hidden_size (int, 128), init_scale
        (float, 0.001); oft: block_size (int, 8), target_modules (str, 'query,value'), neumann_terms (int, 5);
        parallel-adapter: site (str, 'ffn'), reduction_factor (int, 16), scale (float, 1.0), non_linearity (str,
        'relu'), init_scale (float, 0.001); pfeiffer: reduction_factor (int, 16), non_linearity (str, 'relu'),
        init_scale (float, 0.001), train_layer_norms (bool, False); prefix: num_virtual_tokens (int, 20),
        prefix_projection (bool, True), encoder_hidden_size (int, 128); prompt: num_virtual_tokens (int, 20), init
        (str, 'vocab'), init_text (str, 'Classify the sentiment of this text:'); rslora: rank (int, 8), alpha
        (float, 16.0), dropout (float, 0.1), target_modules (str, 'query,value'); vera: rank (int, 256),
        target_modules (str, 'query,value'), dropout (float, 0.0), d_initial (float, 0.1)."""
        return self._run(_requests.FinetuneRequest, locals())

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

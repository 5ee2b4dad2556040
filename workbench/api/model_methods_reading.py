"""``Model``'s reading commands: one method per command that reads one model.

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests


class ReadingCommands:
    """One group of the one-model commands as methods; ``Model`` supplies ``_run(request_class, arguments)``."""

    def info(
            self,
    ) -> Any:
        """``lm-workbench info``: what a model is: family, layers, heads, heads present."""
        return self._run(_requests.InfoRequest, locals())

    def encode(
            self,
            text: str | None = None,
            *,
            text_file: str | None = None,
            pair: str | None = None,
            target: str | None = None,
            out: str | None = None,
            no_attentions: bool = False,
    ) -> Any:
        """``lm-workbench encode``: tokens, hidden states and attentions of a text, to an .npz file. ``out`` None keeps
        the data (``save(path)`` writes the CLI's .npz file)."""
        return self._run(_requests.EncodeRequest, locals())

    def attention(
            self,
            text: str,
            *,
            pair: str | None = None,
            target: str | None = None,
            kind: str = "encoder",
            layer: int,
            head: int,
            hide_special: bool = False,
    ) -> Any:
        """``lm-workbench attention``: one head's attention weights for a text."""
        return self._run(_requests.AttentionRequest, locals())

    def fill_mask(
            self,
            text: str,
            *,
            k: int = 5,
    ) -> Any:
        """``lm-workbench fill-mask``: top-k tokens for every [MASK] (models with an MLM head)."""
        return self._run(_requests.FillMaskRequest, locals())

    def next_token(
            self,
            text: str,
            *,
            k: int = 5,
    ) -> Any:
        """``lm-workbench next-token``: top-k next tokens after a text (decoders)."""
        return self._run(_requests.NextTokenRequest, locals())

    def neighbours(
            self,
            *,
            corpus: str,
            text_column: str | None = None,
            label_column: str | None = None,
            tsv_quoting: str = "auto",
            layer: str,
            pooling: str = "mean",
            cache: bool = False,
            word: str,
            k: int = 5,
    ) -> Any:
        """``lm-workbench neighbours``: nearest occurrences of a word across a corpus (contextual embeddings)."""
        return self._run(_requests.NeighboursRequest, locals())

    def project(
            self,
            *,
            corpus: str,
            text_column: str | None = None,
            label_column: str | None = None,
            tsv_quoting: str = "auto",
            layer: str,
            pooling: str = "mean",
            cache: bool = False,
            word: tuple[str, ...] | None = None,
            method: str = "pca",
            seed: int = 0,
            set: tuple[str, ...] = (),
            out: str | None = None,
    ) -> Any:
        """``lm-workbench project``: a 2-D map (PCA, UMAP, t-SNE) of word occurrences, to CSV. ``out`` None keeps the
        data (``save(path)`` writes the CLI's .csv file)."""
        return self._run(_requests.ProjectRequest, locals())

    def scalar_mix(
            self,
            *,
            task: str,
            kind: str,
            tag_column: int | None = None,
            text_column: str | None = None,
            label_column: str | None = None,
            tsv_quoting: str = "auto",
            pooling: str = "mean",
            steps: int = 300,
            seed: int = 0,
    ) -> Any:
        """``lm-workbench scalar-mix``: learn ELMo's scalar mix of a model's layers for a task."""
        return self._run(_requests.ScalarMixRequest, locals())

    def generate(
            self,
            text: str,
            *,
            greedy: bool = False,
            temperature: float | None = None,
            top_k: int | None = None,
            top_p: float | None = None,
            max_new_tokens: int = 40,
            seed: int = 0,
            stop: tuple[str, ...] = (),
            chat: bool = False,
            template: str | None = None,
    ) -> Any:
        """``lm-workbench generate``: generate text after a prompt (decoders, encoder-decoders)."""
        return self._run(_requests.GenerateRequest, locals())

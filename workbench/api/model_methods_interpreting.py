"""``Model``'s interpreting commands: one method per command that reads one model.

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests


class InterpretingCommands:
    """One group of the one-model commands as methods; ``Model`` supplies ``_run(request_class, arguments)``."""

    def lens(
            self,
            text: str,
            *,
            target: str | None = None,
            k: int = 1,
            tuned: str | None = None,
    ) -> Any:
        """``lm-workbench lens``: logit lens: the top token of every layer at every position."""
        return self._run(_requests.LensRequest, locals())

    def tuned_lens(
            self,
            *,
            corpus: tuple[str, ...],
            steps: int | None = None,
            batch_size: int | None = None,
            seq_len: int | None = None,
            lr: float | None = None,
            seed: int | None = None,
            validation_windows: int | None = None,
            checkpoint_every: int | None = None,
            out: str | None = None,
            name: str | None = None,
    ) -> Any:
        """``lm-workbench tuned-lens``: train a tuned lens: an affine translator per layer, the model frozen."""
        return self._run(_requests.TunedLensRequest, locals())

    def attribute(
            self,
            text: str,
            *,
            target: str | None = None,
            contrast: str | None = None,
            output_position: int = 0,
            method: str = "grad-input",
            steps: int = 32,
            attention_layer: int | None = None,
    ) -> Any:
        """``lm-workbench attribute``: which input tokens a prediction rests on (decoders: the next token; masked LMs:
        the masked token; encoder-decoders: an output token)."""
        return self._run(_requests.AttributeRequest, locals())

    def patch(
            self,
            *,
            clean: str,
            corrupt: str | None = None,
            subject: str | None = None,
            noise_scale: float = 3.0,
            noise_samples: int = 10,
            seed: int = 0,
            target: str,
            contrast: str | None = None,
            site: str = "resid",
            output_position: int = 0,
            approx: bool = False,
            compare_exact: bool = False,
    ) -> Any:
        """``lm-workbench patch``: activation patching (causal tracing): restore one layer's activation at one position
        from a clean run into a corrupted one, for every layer and position."""
        return self._run(_requests.PatchRequest, locals())

    def dla(
            self,
            text: str,
            *,
            target: str | None = None,
            contrast: str | None = None,
            output_position: int = 0,
    ) -> Any:
        """``lm-workbench dla``: direct logit attribution: the logit (difference) split into the embeddings, each
        attention head and each MLP (pre-norm models: GPT-2, Llama-style, T5)."""
        return self._run(_requests.DlaRequest, locals())

    def ablate(
            self,
            text: str,
            *,
            target: str,
            contrast: str | None = None,
            output_position: int = 0,
            heads: str | None = None,
            all_heads: bool = False,
            mlps: str | None = None,
            how: str = "zero",
            corpus: str | None = None,
            seed: int = 0,
    ) -> Any:
        """``lm-workbench ablate``: take attention heads or MLPs out (zero, mean or resample ablation) and see logit(X)
        (- logit(Y)) move."""
        return self._run(_requests.AblateRequest, locals())

    def sae_train(
            self,
            *,
            corpus: str,
            out: str,
            site: str | None = None,
            kind: str = "topk",
            expansion: int = 8,
            sparsity: float | None = None,
            steps: int = 200,
            batch: int = 256,
            lr: float = 0.001,
            buffer_tokens: int = 4096,
            context: int = 64,
            seed: int = 0,
            checkpoint_every: int = 100,
            resume: bool = False,
            name: str | None = None,
    ) -> Any:
        """``lm-workbench sae train``: train an SAE on a site's activations over a corpus (a recorded run)."""
        return self._run(_requests.SaeTrainRequest, locals())

    def steer(
            self,
            *,
            text: str,
            site: str,
            strength: float,
            vector: str | None = None,
            feature: str | None = None,
            pairs: str | None = None,
            generate: int = 0,
            top: int = 5,
            save_vector: str | None = None,
            grid: bool = False,
            grid_layers: tuple[int, ...] | None = None,
            grid_strengths: tuple[float, ...] | None = None,
            concept: str | None = None,
    ) -> Any:
        """``lm-workbench steer``: steered beside unsteered predictions (and generations)."""
        return self._run(_requests.SteerRequest, locals())

"""``lm_workbench``'s training commands (those that read no model or more than one).

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lm_workbench import requests as _requests
from lm_workbench.api.runner import call as _call

if TYPE_CHECKING:
    from lm_workbench.api.model import Model  # a loaded model, where a function takes one


def pretrain(
        *,
        family: str,
        objective: str,
        corpus: tuple[str, ...],
        out: str,
        preset: str = "tiny",
        layers: int | None = None,
        hidden: int | None = None,
        heads: int | None = None,
        intermediate: int | None = None,
        dropout: float | None = None,
        seq_len: int = 128,
        vocab_size: int = 8000,
        validation_fraction: float = 0.05,
        steps: int | None = None,
        batch_size: int | None = None,
        lr: float | None = None,
        seed: int | None = None,
        checkpoint_every: int | None = None,
        device: str | None = None,
        train: tuple[str, ...] = (),
        set: tuple[str, ...] = (),
        resume: str | None = None,
        name: str | None = None,
) -> Any:
    """``lm-workbench pretrain``: pre-train a BERT, GPT-2, BART, T5 or ELMo model from scratch on text files."""
    return _call(_requests.PretrainRequest, locals())


def course_models(
        *,
        corpus: str | None = None,
        out: str | None = None,
        families: tuple[str, ...] | None = None,
        rebuild: bool = False,
) -> Any:
    """``lm-workbench course-models``: pre-train tiny BERT, GPT-2, BART, T5 and ELMo models for demonstrations."""
    return _call(_requests.CourseModelsRequest, locals())


def corrupt(
        *,
        objective: str,
        tokenizer: str,
        text: str,
        seed: int = 0,
        samples: int | None = None,
        set: tuple[str, ...] = (),
        offline: bool | None = None,
        trust_remote_code: bool | None = None,
) -> Any:
    """``lm-workbench corrupt``: what a pre-training objective does to a text: inputs, labels, kinds."""
    return _call(_requests.CorruptRequest, locals())


def finetune(
        model: str | Model = "",
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
    return _call(_requests.FinetuneRequest, locals())


def finetune_merge(
        folders: tuple[str, ...],
        *,
        how: str = "linear",
        weights: str | None = None,
        density: float = 0.5,
        seed: int = 0,
        fold: bool = False,
        out: str,
) -> Any:
    """``lm-workbench finetune-merge``: fold a LoRA/IA³ run into the base weights, or combine several runs into one
    adapter (linear, TIES, DARE)."""
    return _call(_requests.FinetuneMergeRequest, locals())


def predict(
        folder: str,
        *,
        text: str,
        text2: str | None = None,
        context: str | None = None,
) -> Any:
    """``lm-workbench predict``: a fine-tuned model's prediction for a text."""
    return _call(_requests.PredictRequest, locals())


def baseline_tfidf_lr(
        *,
        train: str,
        validation: str | None = None,
        validation_fraction: float = 0.2,
        seed: int = 0,
        text_column: str | None = None,
        label_column: str | None = None,
        tsv_quoting: str = "auto",
        keep_unseen_labels: bool = False,
        vectorizer: str = "{}",
        classifier: str = "{}",
) -> Any:
    """``lm-workbench baseline tfidf-lr``: TF-IDF features + logistic regression (scikit-learn)."""
    return _call(_requests.BaselineTfidfLrRequest, locals())


def baseline_bilstm(
        *,
        train: str,
        validation: str | None = None,
        validation_fraction: float = 0.2,
        seed: int = 0,
        text_column: str | None = None,
        label_column: str | None = None,
        tsv_quoting: str = "auto",
        keep_unseen_labels: bool = False,
        embedding: int = 64,
        hidden: int = 64,
        layers: int = 1,
        dropout: float = 0.1,
        epochs: int = 8,
        batch_size: int = 32,
        lr: float = 0.005,
        min_count: int = 1,
        max_length: int = 64,
) -> Any:
    """``lm-workbench baseline bilstm``: a BiLSTM sentence classifier trained from scratch."""
    return _call(_requests.BaselineBilstmRequest, locals())


__all__ = [
    "pretrain",
    "course_models",
    "corrupt",
    "finetune",
    "finetune_merge",
    "predict",
    "baseline_tfidf_lr",
    "baseline_bilstm",
]

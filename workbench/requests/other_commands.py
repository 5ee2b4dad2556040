"""Requests of the commands that read no model or more than one (``compare``, ``corrupt``, ``pretrain``,
``finetune``, ``presets verify``...): one frozen dataclass each, the CLI's arguments and defaults
(``lm_workbench.requests.base`` says the rules). Each field's comment names its flag."""

from __future__ import annotations

import argparse
from dataclasses import field, fields
from typing import Any

from lm_workbench.requests.base import Request, _frozen


class GuiRequest(Request, command="gui"):
    """``lm-workbench gui``: open the window (the default with no command)"""

    model: str | None = None  # positional


class DownloadRequest(Request, command="download"):
    """``lm-workbench download``: fetch a hub model into the cache without loading it (size, progress, resume)"""

    repo_id: str  # positional
    revision: str | None = None  # --revision
    allow_pickle: bool | None = None  # --allow-pickle


class CompareRequest(Request, command="compare"):
    """``lm-workbench compare``: how alike two models' layers are on the same words: layer x layer CKA"""

    model_a: str  # positional
    model_b: str  # positional
    text: tuple[str, ...]  # --text
    device: str | None = None  # --device
    precision: str | None = None  # --precision
    offline: bool | None = None  # --offline


class CorruptRequest(Request, command="corrupt"):
    """``lm-workbench corrupt``: what a pre-training objective does to a text: inputs, labels, kinds"""

    objective: str  # --objective
    tokenizer: str  # --tokenizer
    text: str  # --text
    seed: int = 0  # --seed
    samples: int | None = None  # --samples
    set: tuple[str, ...] = ()  # --set
    offline: bool | None = None  # --offline
    trust_remote_code: bool | None = None  # --trust-remote-code


class PluginsListRequest(Request, command="plugins list"):
    """``lm-workbench plugins list``: every plugin with its source, status and error"""


class PretrainRequest(Request, command="pretrain"):
    """``lm-workbench pretrain``: pre-train a BERT, GPT-2, BART, T5 or ELMo model from scratch on text files"""

    family: str  # --family
    objective: str  # --objective
    corpus: tuple[str, ...]  # --corpus
    out: str  # --out
    preset: str = "tiny"  # --preset
    layers: int | None = None  # --layers
    hidden: int | None = None  # --hidden
    heads: int | None = None  # --heads
    intermediate: int | None = None  # --intermediate
    dropout: float | None = None  # --dropout
    seq_len: int = 128  # --seq-len
    vocab_size: int = 8000  # --vocab-size
    validation_fraction: float = 0.05  # --validation-fraction
    steps: int | None = None  # --steps
    batch_size: int | None = None  # --batch-size
    lr: float | None = None  # --lr
    seed: int | None = None  # --seed
    checkpoint_every: int | None = None  # --checkpoint-every
    device: str | None = None  # --device
    train: tuple[str, ...] = ()  # --train
    set: tuple[str, ...] = ()  # --set
    resume: str | None = None  # --resume
    name: str | None = None  # --name


class RunsListRequest(Request, command="runs list"):
    """``lm-workbench runs list``: every run, newest first, with its final metrics"""

    kind: str | None = None  # --kind


class CourseModelsRequest(Request, command="course-models"):
    """``lm-workbench course-models``: pre-train tiny BERT, GPT-2, BART, T5 and ELMo models for demonstrations"""

    corpus: str | None = None  # --corpus
    out: str | None = None  # --out
    families: tuple[str, ...] | None = None  # --families
    rebuild: bool = False  # --rebuild


class PresetsListRequest(Request, command="presets list"):
    """``lm-workbench presets list``: the built-in presets (and --file ones) with their availability"""

    file: tuple[str, ...] = ()  # --file


class PresetsCheckRequest(Request, command="presets check"):
    """``lm-workbench presets check``: validate a preset file and say whether it can be shown here"""

    file: str  # positional


class PresetsVerifyRequest(Request, command="presets verify"):
    """``lm-workbench presets verify``: evaluate the presets' claims on the models they name: holds / fails / cannot
    run, with the numbers"""

    presets: tuple[str, ...]  # positional


class FinetuneRequest(Request, command="finetune"):
    """``lm-workbench finetune``: fine-tune a model on a task with a method (full, LoRA, adapters, ...)"""

    # positional; the API takes a loaded Model too (``m.finetune`` is this function bound to ``m``)
    model: str = field(default="", metadata={"api_type": "str | Model"})
    task: str | None = None  # --task
    train: str | None = None  # --train
    validation: str | None = None  # --validation
    method: str | None = None  # --method
    # --<method>-<setting> (--lora-rank 4: ("rank", "4")), one option per field of each method's Config, added
    # when finetune is parsed: (setting, value) pairs sorted by setting; a mapping ({"rank": 4}) is taken too
    method_settings: tuple[tuple[str, Any], ...] = field(
        default=(), metadata={"api_type": "dict[str, Any] | tuple[tuple[str, Any], ...]"})
    epochs: float | None = None  # --epochs
    out: str | None = None  # --out
    lr: float | None = None  # --lr
    batch_size: int | None = None  # --batch-size
    max_length: int | None = None  # --max-length
    seed: int | None = None  # --seed
    text_columns: str | None = None  # --text-columns
    loss: str | None = None  # --loss
    pooling: str | None = None  # --pooling
    margin: float | None = None  # --margin
    template: str | None = None  # --template
    beta: float | None = None  # --beta
    tsv_quoting: str | None = None  # --tsv-quoting
    keep_unseen_labels: bool | None = None  # --keep-unseen-labels
    train_setting: tuple[str, ...] = ()  # --train-setting
    resume: str | None = None  # --resume

    def __post_init__(self) -> None:
        from lm_workbench.finetune.method_settings import normalised

        object.__setattr__(self, "method_settings", normalised(self.method_settings))

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> "FinetuneRequest":
        """The request of a parsed ``finetune`` line: its ``--<method>-<setting>`` options become
        ``method_settings`` (``WorkbenchError`` for a setting of another method than ``--method``, the CLI's line)."""
        from lm_workbench.finetune.method_settings import settings_of

        given = {f.name: _frozen(getattr(args, f.name)) for f in fields(cls) if f.name != "method_settings"}
        return cls(**given, method_settings=settings_of(args))

    @classmethod
    def api_doc(cls) -> str:
        """What the Python API's ``finetune`` says of ``method_settings``, with the built-in methods' settings."""
        from lm_workbench.finetune.method_settings import builtin_method_fields, settings_doc

        return ("``method_settings``: the method's own settings, setting name -> value, as the CLI's "
                "``--<method>-<setting>`` options give them (``lm-workbench finetune --help`` lists them), e.g. "
                "``method=\"lora\", method_settings={\"rank\": 4, \"alpha\": 8}`` is ``--method lora --lora-rank 4 "
                "--lora-alpha 8``; refused with the CLI's line when a name is no setting of the method (the nearest "
                "one named, or the methods it belongs to) or a value has the wrong type or is out of range. The "
                "built-in methods' settings, name (kind, default): " + settings_doc(builtin_method_fields()))

    def extra_argv(self) -> list[str]:
        """``method_settings`` as the CLI's options of ``method`` (``["--lora-rank=4"]``)."""
        from lm_workbench.finetune.method_settings import setting_words

        return setting_words(self.method, self.method_settings)


class PredictRequest(Request, command="predict"):
    """``lm-workbench predict``: a fine-tuned model's prediction for a text"""

    folder: str  # positional
    text: str  # --text
    text2: str | None = None  # --text2
    context: str | None = None  # --context


class FinetuneMergeRequest(Request, command="finetune-merge"):
    """``lm-workbench finetune-merge``: fold a LoRA/IA³ run into the base weights, or combine several runs into one
    adapter (linear, TIES, DARE)"""

    folders: tuple[str, ...]  # positional
    how: str = "linear"  # --how
    weights: str | None = None  # --weights
    density: float = 0.5  # --density
    seed: int = 0  # --seed
    fold: bool = False  # --fold
    out: str  # --out

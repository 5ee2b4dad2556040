"""The fine-tuning method protocol: what a plugin in ``lm_workbench.finetune_methods`` provides.

A method adapts a ``transformers`` *task model* (``AutoModelFor{SequenceClassification,
TokenClassification,QuestionAnswering,Seq2SeqLM}`` with a freshly initialised head)
for training, saves what it trained apart from the base model, and puts it back
onto a fresh copy of that base. The one training loop (``lm_workbench.engine.training``)
trains whatever ``apply`` returns: only parameters with ``requires_grad`` are
optimised, so the method's whole job is choosing (or adding) them.

Every method carries a ``Config`` dataclass whose fields have ``metadata={"help": ...}``
(and optional ``min``/``max``/``choices``), with only bool/int/float/str fields
(lists are comma-separated strings), so the form and the CLI options are built
from it (``lm_workbench.engine.objectives.config_fields.config_fields``). Its learning rate is
the method's own: ``default_lr`` with ``lr_reason`` saying why (full fine-tuning
~2e-5-5e-5; LoRA, adapters, prefix ~1e-3 or more).

``attachment`` describes where the method sits inside one transformer block,
for the training view's diagram: which sites it touches (``SITES``), its
formula, and which residual path it is on. ``unified`` (since 2.3) is the method's row in He et al.
(2022)'s unified framework (``lm_workbench.engine.finetune.unified.UnifiedRow``): Δh's functional form, its insertion
form, the representation it modifies and the composition function, with the formula typeset; the view
shows it beside the diagram and in a table of all methods, the bench reads it too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from torch import nn

from lm_workbench.engine.api_version import API_VERSION
from lm_workbench.engine.finetune.names import CLASSIC_TASKS, HEAD_TASKS, SITES
from lm_workbench.engine.finetune.names import TASKS as ALL_TASKS
from lm_workbench.engine.finetune.unified import UnifiedRow

# The plugin API's ``TASKS``: the four classic tasks with a head. A method supports the sentence task or instruct
# only where it declares them in its ``tasks`` (issues 32 and 33: "all tasks" does not silently gain them).
TASKS = HEAD_TASKS



@dataclass(frozen=True)
class Attachment:
    """Where a method attaches, for the diagram: ``sites`` ⊆ ``SITES``, trained or added there."""

    sites: tuple[str, ...]
    formula: str  # e.g. "h = W₀x + (α/r)·B·A·x"
    residual: str  # one line: which residual path the change sits on
    adds_modules: bool = True  # False when the method only unfreezes existing weights (full, BitFit)


class FineTuneMethod:
    """Subclass this; register the subclass in the entry-point group ``lm_workbench.finetune_methods``."""

    api_version: ClassVar[str] = API_VERSION
    name: ClassVar[str] = ""  # the CLI's --method value, e.g. "lora"
    title: ClassVar[str] = ""  # what the form shows, e.g. "LoRA (Hu et al. 2021)"
    description: ClassVar[str] = ""  # one or two sentences for the form's help
    Config: ClassVar[type]  # a dataclass with help metadata; see the module docstring
    tasks: ClassVar[frozenset[str]] = frozenset(CLASSIC_TASKS)  # the task types it supports (newer ones by name)
    default_lr: ClassVar[float] = 1e-3
    lr_reason: ClassVar[str] = ""
    attachment: ClassVar[Attachment]
    can_merge: ClassVar[bool] = False  # True when ``merge`` folds the trained weights into the base (LoRA)
    unified: ClassVar[UnifiedRow | None] = None  # its row in He et al.'s unified view (2.3); None: not declared

    def default_config(self) -> Any:
        return self.Config()

    def attachment_for(self, config: Any) -> Attachment:
        """Where the method attaches with this ``config`` (default: ``attachment``); the diagram draws it."""
        return self.attachment

    def sizes_for(self, config: Any, hidden: int) -> str | None:
        """The sizes ``config`` takes on a model of width ``hidden`` when they differ from what the config says
        (e.g. MAM's bottleneck scaled to d/2), for the diagram; None when there is nothing to add (3.1)."""
        return None

    def unified_for(self, config: Any) -> UnifiedRow | None:
        """The method's He et al. row with this ``config`` (default: ``unified``; e.g. the representation a
        parallel adapter modifies follows its site)."""
        return self.unified

    def config_from_dict(self, data: dict) -> Any:
        """A ``Config`` from a saved dict (``dataclasses.asdict``); unknown keys are dropped, then checked."""
        known = {f.name for f in dataclasses.fields(self.Config)}
        config = self.Config(**{k: v for k, v in data.items() if k in known})
        self.check_config(config)
        return config

    def check_task(self, task: str) -> None:
        """Raise ``WorkbenchError`` for a task type this method does not support."""
        from lm_workbench.engine.errors import WorkbenchError

        if task not in ALL_TASKS:
            raise WorkbenchError(f"unknown task {task!r}; tasks: {', '.join(ALL_TASKS)}")
        if task not in self.tasks:
            supported = ", ".join(t for t in ALL_TASKS if t in self.tasks)
            raise WorkbenchError(f"{self.name} does not support the {task} task (it supports {supported})")

    def check_config(self, config: Any) -> None:
        """Raise ``WorkbenchError`` for a config this method cannot use (default: field ranges only)."""
        from lm_workbench.engine.objectives.config_fields import validate_config

        validate_config(config, owner=self.name)

    def apply(self, model: nn.Module, config: Any, task: str) -> nn.Module:
        """Make ``model`` (a task model, head freshly initialised) ready to train; return the model to train.

        Call ``check_task(task)`` and ``check_config(config)`` first. ``model`` may be changed in place:
        pass a fresh copy.

        It may be ``model`` itself (frozen in part) or a wrapper (a ``peft.PeftModel``, a feature-based
        model); its ``forward(**inputs, labels=...)`` returns what the task model's would (``.loss``,
        ``.logits`` or ``.start_logits``/``.end_logits``). Trainable = ``requires_grad``; the task head is
        always trainable. Raise ``WorkbenchError`` for a model or task the method cannot adapt.
        """
        raise NotImplementedError

    def save(self, model: nn.Module, folder: Path) -> None:
        """Write only what ``apply``'s model trained (never the frozen base) to ``folder``, as safetensors.

        What ``load`` needs besides (the config, the task) ``apply`` keeps on the model it returns.
        """
        raise NotImplementedError

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        """Put what ``save`` wrote onto ``base_model`` (a fresh task model of the same base); return the model.

        The folder says the config and task it was saved with. Its predictions must be bit-identical
        (``torch.equal`` on logits, eval mode) to the saved model's. The returned model is in eval mode.
        """
        raise NotImplementedError

    def merge(self, model: nn.Module) -> nn.Module:
        """Fold the trained weights into the base weights (``can_merge`` methods); return a plain task model."""
        from lm_workbench.engine.errors import WorkbenchError

        raise WorkbenchError(f"{self.name} cannot be merged into the base weights")

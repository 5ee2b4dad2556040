"""The fine-tuning method kind: entry-point group ``lm_workbench.finetune_methods``, base ``FineTuneMethod``."""

from __future__ import annotations

from lm_workbench.engine.finetune.names import TASKS as ALL_TASKS
from lm_workbench.engine.plugin_api import SITES, Attachment, FineTuneMethod
from lm_workbench.extensions.extension_kind import ExtensionKind, config_problem


def check_finetune_method(cls: type) -> str | None:
    """Why the ``FineTuneMethod`` subclass ``cls`` cannot be used, or None when it can."""
    tasks = getattr(cls, "tasks", None)
    if not isinstance(tasks, (set, frozenset)) or not tasks or not set(tasks) <= set(ALL_TASKS):
        return f"tasks must be a non-empty set of {', '.join(ALL_TASKS)}, not {tasks!r}"
    attachment = getattr(cls, "attachment", None)
    if not isinstance(attachment, Attachment) or not set(attachment.sites) <= set(SITES):
        return f"attachment must be an Attachment whose sites are among {', '.join(SITES)}"
    lr = getattr(cls, "default_lr", None)
    if not isinstance(lr, float) or not 0 < lr < 1 or not getattr(cls, "lr_reason", ""):
        return "it needs a default_lr between 0 and 1 and an lr_reason saying why"
    return config_problem(cls)


FINETUNE_METHODS = ExtensionKind(name="finetune-method", group="lm_workbench.finetune_methods", base=FineTuneMethod,
                                 check=check_finetune_method)

"""Whether a method can attach to a base, asked before anything is trained or recorded.

``check_attaches`` builds the task model from the base's config on PyTorch's meta device (shapes, no
weights: a fraction of a second even for a large model) and applies the method to it, so a method that
cannot attach to the family (a site it needs is missing, a layer type it cannot adapt) is refused with its
own one-line reason while the run is still being checked. Anything other than a ``WorkbenchError`` raised on
the meta model (an operation that needs real numbers) is left to the real apply, which follows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError


def meta_task_model(folder: str | Path, task: str, labels: Sequence[str] = ()) -> Any:
    """The task model ``build_task_model`` would build, on the meta device (no weights read)."""
    import torch
    import transformers

    from lm_workbench.engine.finetune.task_model import HEAD_CLASSES, _config, check_task_support
    from lm_workbench.engine.models.loading import quiet_transformers

    check_task_support(folder, task)
    config = _config(Path(folder))
    if task in ("seq-cls", "token-cls") and len(labels) >= 2:
        config.num_labels = len(labels)
    quiet_transformers()
    with torch.device("meta"):
        model = getattr(transformers, HEAD_CLASSES[task]).from_config(config)
    model.config._name_or_path = str(folder)
    return model


def check_attaches(method: Any, config: Any, folder: str | Path, task: str, labels: Sequence[str] = ()) -> None:
    """Raise the method's ``WorkbenchError`` when it cannot attach to the base in ``folder`` for ``task``."""
    try:
        model = meta_task_model(folder, task, labels)
    except WorkbenchError:
        raise
    except Exception:  # a config transformers cannot build on meta: the real build will say
        return
    try:
        method.apply(model, config, task)
    except WorkbenchError:
        raise
    except Exception:  # needs real numbers (e.g. a prompt initialised from text): the real apply will say
        return

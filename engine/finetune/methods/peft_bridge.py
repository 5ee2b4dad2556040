"""Methods built on ``peft`` (LoRA, prefix and prompt tuning): task types, wrapping, saving, loading, merging.

A ``peft`` folder (``adapter_config.json`` + ``adapter_model.safetensors``) holds
only the trained weights (adapter tensors and ``modules_to_save``, the head)
and the peft task type; ``PeftModel.from_pretrained`` puts them onto a fresh base.
"""

from __future__ import annotations

from pathlib import Path

from torch import nn

from lm_workbench.engine.errors import ModelFormatError, WorkbenchError

PEFT_TASK_TYPES = {"seq-cls": "SEQ_CLS", "token-cls": "TOKEN_CLS", "qa": "QUESTION_ANS", "seq2seq": "SEQ_2_SEQ_LM",
                   "sentence-embedding": "FEATURE_EXTRACTION",
                   "preference": "CAUSAL_LM"}


def peft_task_type(task: str, model: nn.Module | None = None) -> str:
    """peft's ``task_type`` for a workbench task ("seq-cls" -> "SEQ_CLS"); instruct and preference: "CAUSAL_LM"
    for a decoder, "SEQ_2_SEQ_LM" for an encoder-decoder (``model``'s config says which)."""
    if task in ("instruct", "preference"):
        encoder_decoder = getattr(getattr(model, "config", None), "is_encoder_decoder", False)
        return "SEQ_2_SEQ_LM" if encoder_decoder else "CAUSAL_LM"
    if task not in PEFT_TASK_TYPES:
        raise WorkbenchError(f"unknown task {task!r}; tasks: {', '.join(PEFT_TASK_TYPES)}")
    return PEFT_TASK_TYPES[task]


def ensure_not_peft(model: nn.Module) -> None:
    """Refuse a model peft already adapted (a second method would stack on the first)."""
    import peft

    if isinstance(model, peft.PeftModel):
        raise WorkbenchError("this model is already adapted with peft; load a fresh copy of the base model")


def wrap_with_peft(model: nn.Module, peft_config, method: str) -> nn.Module:
    """``peft.get_peft_model`` with its refusals turned into one-line ``WorkbenchError``s."""
    import peft

    ensure_not_peft(model)
    try:
        return peft.get_peft_model(model, peft_config)
    except (ValueError, TypeError, NotImplementedError, KeyError, AttributeError, OSError) as error:
        raise WorkbenchError(f"{method} cannot adapt {type(model).__name__}: {error}") from None


def save_peft(model: nn.Module, folder: str | Path, method: str) -> Path:
    """Write a ``PeftModel``'s trained weights (safetensors) and its peft config to ``folder``."""
    import peft

    if not isinstance(model, peft.PeftModel):
        raise WorkbenchError(f"{method}: this is not a peft model; save the model its apply() returned")
    folder = Path(folder)
    model.save_pretrained(str(folder), safe_serialization=True)
    return folder


def load_peft(base_model: nn.Module, folder: str | Path) -> nn.Module:
    """A ``PeftModel`` from ``folder`` on ``base_model``, in eval mode with nothing trainable."""
    import peft

    folder = Path(folder)
    if not (folder / "adapter_config.json").is_file():
        raise ModelFormatError(f"{folder} holds no adapter_config.json; is it a saved peft folder?")
    try:
        model = peft.PeftModel.from_pretrained(base_model, str(folder), is_trainable=False)
    except (ValueError, KeyError, RuntimeError) as error:
        raise WorkbenchError(f"cannot load the adapter in {folder} onto {type(base_model).__name__}: {error}") \
            from None
    return model.eval()


def merge_peft(model: nn.Module) -> nn.Module:
    """Fold a LoRA ``PeftModel``'s weights into its base; returns the plain task model."""
    import peft

    if not isinstance(model, peft.PeftModel):
        raise WorkbenchError("only a peft model can be merged; this one is not")
    return model.merge_and_unload()

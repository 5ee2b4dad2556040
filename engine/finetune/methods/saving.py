"""Saving a method's trained weights apart from the base model, and re-attaching them to a fresh copy.

A folder holds ``adapter_config.json`` (method, config, the base model's name,
architecture and a fingerprint of its frozen weights) and
``adapter_model.safetensors`` (only the trained tensors: adapters, trained
LayerNorms or biases, the task head). Loading applies the same method to the
base model, checks the fingerprint, and copies the tensors in exactly, so
predictions are bit-identical to the model that was saved.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch
from torch import nn

from lm_workbench.engine.errors import ModelFormatError, WorkbenchError
from lm_workbench.engine.finetune.methods.record import record_of

CONFIG_FILE = "adapter_config.json"
WEIGHTS_FILE = "adapter_model.safetensors"
FORMAT = "lm-workbench-peft/1"


def base_fingerprint(model: nn.Module, exclude: set[str]) -> str:
    """sha256 over the names, dtypes, shapes and bytes of ``model``'s state outside ``exclude`` (the trained part).

    Adapter modules are skipped by name, so the adapted model and its fresh base agree.
    """
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        if name in exclude or ".adapter." in f".{name}":
            continue
        tensor = tensor.detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def _apply(method: str, config: dict, model: nn.Module) -> nn.Module:
    if method == "bottleneck":
        from lm_workbench.engine.finetune.methods.bottleneck import BottleneckConfig, add_bottleneck_adapters

        return add_bottleneck_adapters(model, BottleneckConfig.from_dict(config))
    if method == "bitfit":
        from lm_workbench.engine.finetune.methods.bitfit import BitFitConfig, apply_bitfit

        return apply_bitfit(model, BitFitConfig.from_dict(config))
    raise ModelFormatError(f"unknown fine-tuning method {method!r} in {CONFIG_FILE}")


def save_trained(model: nn.Module, folder: str | Path, *, method: str, config: dict, task: str = "",
                 saved_names: list[str] | None = None) -> Path:
    """Write ``model``'s trained tensors (``saved_names``, default: those with ``requires_grad``) to ``folder``.

    ``method``, ``config`` and ``task`` go into the description, so the loader can apply the same method to a
    fresh base before ``load_trained`` copies the tensors in. Returns the folder.
    """
    from safetensors.torch import save_file

    if saved_names is None:
        saved_names = [name for name, p in model.named_parameters() if p.requires_grad]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = model.state_dict()
    tensors = {name: state[name].detach().cpu().contiguous().clone() for name in saved_names}
    save_file(tensors, str(folder / WEIGHTS_FILE), metadata={"format": FORMAT})
    base_config = getattr(model, "config", None)
    description = {
        "format": FORMAT,
        "method": method,
        "config": config,
        "task": task,
        "base_model_name_or_path": getattr(base_config, "_name_or_path", "") or "",
        "base_architecture": getattr(model, "base_architecture", type(model).__name__),
        "base_fingerprint": base_fingerprint(model, set(saved_names)),
        "saved_parameters": len(tensors),
    }
    (folder / CONFIG_FILE).write_text(json.dumps(description, indent=2) + "\n", encoding="utf-8")
    return folder


def save_adapter(model: nn.Module, folder: str | Path) -> Path:
    """Write ``model``'s trained weights and their config to ``folder``; returns the folder."""
    record = record_of(model)
    return save_trained(model, folder, method=record.method, config=record.config, saved_names=record.saved_names)


def read_adapter_config(folder: str | Path) -> dict:
    """The parsed ``adapter_config.json`` of ``folder``, or a one-line error."""
    path = Path(folder) / CONFIG_FILE
    if not path.is_file():
        raise ModelFormatError(f"{folder} holds no {CONFIG_FILE}; is it a saved adapter folder?")
    try:
        description = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ModelFormatError(f"{path} is not valid JSON: {error}") from None
    if description.get("format") != FORMAT:
        raise ModelFormatError(f"{path} is not an LM Workbench adapter (format {description.get('format')!r})")
    return description


def check_architecture(base_model: nn.Module, description: dict) -> None:
    """Refuse a base model of another class than the one the folder was trained on."""
    if type(base_model).__name__ != description["base_architecture"]:
        raise WorkbenchError(f"this adapter was trained on a {description['base_architecture']}, "
                             f"not a {type(base_model).__name__}")


def load_trained(model: nn.Module, folder: str | Path, *, check_base: bool = True) -> nn.Module:
    """Copy the tensors ``save_trained`` wrote into ``model``, already adapted as the saved one was.

    The tensor names must be exactly ``model``'s trainable parameters. With
    ``check_base``, a base whose frozen weights differ from the one the folder
    was trained on is refused (its predictions would differ).
    """
    from safetensors.torch import load_file

    description = read_adapter_config(folder)
    tensors = load_file(str(Path(folder) / WEIGHTS_FILE))
    expected = {name for name, p in model.named_parameters() if p.requires_grad}
    if set(tensors) != expected:
        raise ModelFormatError(f"{folder}: the saved weights do not match the method's trainable parameters "
                               f"({len(tensors)} saved, {len(expected)} expected)")
    if check_base and base_fingerprint(model, set(tensors)) != description["base_fingerprint"]:
        raise WorkbenchError("this base model's weights differ from the ones the adapter was trained on "
                             f"({description['base_model_name_or_path'] or 'unnamed'}); load that base model")
    parameters = dict(model.named_parameters())
    with torch.no_grad():
        for name, tensor in tensors.items():
            parameters[name].copy_(tensor)
    return model


def load_adapter(base_model: nn.Module, folder: str | Path, *, check_base: bool = True) -> nn.Module:
    """Apply the saved method to ``base_model`` (in place) and load its trained weights; returns the model."""
    description = read_adapter_config(folder)
    check_architecture(base_model, description)
    model = _apply(description["method"], description["config"], base_model)
    return load_trained(model, folder, check_base=check_base)

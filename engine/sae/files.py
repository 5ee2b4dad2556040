"""SAE folders in SAELens v6's layout, and steering vectors as safetensors.

An SAE folder holds ``cfg.json`` and ``sae_weights.safetensors`` (``W_enc`` [d_in, d_sae], ``W_dec`` [d_sae, d_in],
``b_enc`` [d_sae], ``b_dec`` [d_in], and ``threshold`` [d_sae] for ``jumprelu``). ``cfg.json`` has SAELens v6's
keys: ``architecture`` (``standard``, ``topk``, ``jumprelu``), ``d_in``, ``d_sae``, ``dtype``, ``device``,
``apply_b_dec_to_input`` (true), ``normalize_activations`` (``none``: the scaling is folded into the weights),
``reshape_activations`` (``none``), ``k`` (topk), and ``metadata`` with ``model_name``, ``hook_name``,
``hook_head_index``, ``context_size``, ``prepend_bos``; for older (v5) files a top-level ``hook_name`` and
``model_name`` are read as well and written too. The workbench's own facts go under ``lm_workbench``:
``model_fingerprint`` (the workbench's provenance fingerprint of the model's folder, given by the caller),
``norm_scaling_factor``, ``sparsity`` and the kind's sparsity name, ``l1_coefficient``/``l0_coefficient``.

A steering vector file is safetensors with one tensor ``vector`` [d] and string metadata ``site``,
``model_fingerprint``, ``model_name``, ``how`` ("contrastive pairs", "feature ...").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sae.kinds import KINDS, SPARSITY_NAME, SparseAutoencoder

CFG, WEIGHTS = "cfg.json", "sae_weights.safetensors"
SAELENS_ARCHITECTURES = {"standard": "standard", "topk": "topk", "jumprelu": "jumprelu", "relu": "standard"}


@dataclass
class SaeFile:
    """A loaded SAE folder: the module (weights read raw activations), the hook name, the config as read."""

    sae: SparseAutoencoder
    hook_name: str
    model_name: str | None
    fingerprint: str | None
    cfg: dict[str, Any]
    folder: Path


def save_sae(folder: str | Path, sae: SparseAutoencoder, *, hook_name: str, model_name: str,
             fingerprint: str | None, scaling_factor: float | None = None, context_size: int | None = None,
             extra: dict[str, Any] | None = None) -> Path:
    """Write ``sae`` (already folded to raw activations) as a SAELens v6 folder; returns the folder."""
    from safetensors.torch import save_file

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    tensors = {name: getattr(sae, name).detach().cpu().contiguous() for name in ("W_enc", "W_dec", "b_enc", "b_dec")}
    if sae.kind == "jumprelu":
        tensors["threshold"] = sae.threshold.detach().cpu().contiguous()
    save_file(tensors, str(out / WEIGHTS))
    cfg = {
        "architecture": sae.kind, "d_in": sae.d_in, "d_sae": sae.d_sae, "dtype": "float32", "device": "cpu",
        "apply_b_dec_to_input": True, "normalize_activations": "none", "reshape_activations": "none",
        "hook_name": hook_name, "model_name": model_name,
        "metadata": {"model_name": model_name, "hook_name": hook_name, "hook_head_index": None,
                     "context_size": context_size, "prepend_bos": True, "sae_lens_training_version": None},
        "lm_workbench": {"model_fingerprint": fingerprint, "norm_scaling_factor": scaling_factor,
                         "sparsity_name": SPARSITY_NAME[sae.kind], "sparsity": sae.sparsity, **(extra or {})},
    }
    if sae.kind == "topk":
        cfg["k"] = sae.k
    (out / CFG).write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return out


def load_sae(folder: str | Path) -> SaeFile:
    """Read an SAE folder written by SAELens (v5 or v6) or by ``save_sae``; a one-line error for a missing file,
    an unknown architecture or normalisation, or weights whose shapes disagree with the config."""
    from safetensors.torch import load_file

    root = Path(folder)
    if not (root / CFG).is_file() or not (root / WEIGHTS).is_file():
        raise WorkbenchError(f"{root} is no SAE folder: it needs {CFG} and {WEIGHTS} (SAELens's layout)")
    from lm_workbench.engine.text_input import read_text_file

    try:
        cfg = json.loads(read_text_file(root / CFG))
    except ValueError as exc:
        raise WorkbenchError(f"{root / CFG} is not JSON: {exc}") from None
    meta = cfg.get("metadata") or {}
    arch = SAELENS_ARCHITECTURES.get(str(cfg.get("architecture", "standard")))
    if arch is None:
        raise WorkbenchError(f"{root}: SAE architecture {cfg.get('architecture')!r} is not one of {', '.join(KINDS)}")
    norm = cfg.get("normalize_activations") or "none"
    if norm != "none":
        raise WorkbenchError(f"{root}: normalize_activations {norm!r} is not supported (fold the scaling into the "
                             "weights, as SAELens's fold_activation_norm_scaling_factor does)")
    hook_name = meta.get("hook_name") or cfg.get("hook_name")
    if not hook_name:
        raise WorkbenchError(f"{root / CFG} names no hook_name")
    weights = load_file(str(root / WEIGHTS))
    d_in, d_sae = int(cfg["d_in"]), int(cfg["d_sae"])
    own = cfg.get("lm_workbench") or {}
    sparsity = cfg.get("k") if arch == "topk" else own.get("sparsity")
    sae = SparseAutoencoder(arch, d_in, d_sae, sparsity)
    expected = {"W_enc": (d_in, d_sae), "W_dec": (d_sae, d_in), "b_enc": (d_sae,), "b_dec": (d_in,)}
    if arch == "jumprelu":
        expected["threshold"] = (d_sae,)
    for name, shape in expected.items():
        if name not in weights or tuple(weights[name].shape) != shape:
            found = tuple(weights[name].shape) if name in weights else "missing"
            raise WorkbenchError(f"{root / WEIGHTS}: {name} is {found}, the config says {shape}")
    with torch.no_grad():
        for name in ("W_enc", "W_dec", "b_enc", "b_dec"):
            getattr(sae, name).copy_(weights[name].float())
        if arch == "jumprelu":
            sae.log_threshold.copy_(weights["threshold"].float().clamp_min(1e-12).log())
    sae.eval()
    return SaeFile(sae, str(hook_name), meta.get("model_name") or cfg.get("model_name"),
                   own.get("model_fingerprint"), cfg, root)


def check_fits(file: SaeFile, loaded: Any, width: int, fingerprint: str | None) -> list[str]:
    """A one-line error when the SAE's width differs from its site's width in ``loaded`` (naming both); notes
    when the model's fingerprint differs from the one the SAE was trained on (or one side has none)."""
    if file.sae.d_in != width:
        raise WorkbenchError(f"the SAE {file.folder} reads {file.hook_name} of width {file.sae.d_in}, but "
                             f"{loaded.info.spec}'s {file.hook_name} is {width} wide")
    if file.fingerprint and fingerprint and file.fingerprint != fingerprint:
        raise WorkbenchError(f"the SAE {file.folder} was trained on another model ({file.model_name}, fingerprint "
                             f"{file.fingerprint[:12]}) than {loaded.info.spec} (fingerprint {fingerprint[:12]})")
    if not file.fingerprint:
        return [f"the SAE {file.folder.name} carries no model fingerprint (a SAELens file): the site and width "
                "match, the model itself is not checked"]
    return []


def save_vector(path: str | Path, vector: torch.Tensor, *, site: str, model_name: str, fingerprint: str | None,
                how: str) -> Path:
    """Write a steering vector [d] with its site and provenance (see the module docstring)."""
    from safetensors.torch import save_file

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_file({"vector": vector.detach().float().cpu().contiguous()}, str(out),
              metadata={"site": site, "model_name": model_name, "model_fingerprint": fingerprint or "", "how": how})
    return out


def load_vector(path: str | Path) -> tuple[torch.Tensor, dict[str, str]]:
    """(vector [d], metadata) of a steering vector file; a one-line error for a file that is not one."""
    from safetensors import safe_open

    file = Path(path)
    if not file.is_file():
        raise WorkbenchError(f"steering vector not found: {file}")
    try:
        with safe_open(str(file), "pt") as fh:
            meta = fh.metadata() or {}
            if "vector" not in fh.keys():
                raise WorkbenchError(f"{file} holds no tensor 'vector'")
            vector = fh.get_tensor("vector").float()
    except WorkbenchError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parse failure of a user's file is one line
        raise WorkbenchError(f"{file} is not a safetensors steering vector ({exc})") from None
    if vector.dim() != 1:
        raise WorkbenchError(f"{file}: 'vector' is {tuple(vector.shape)}, not one direction [d]")
    return vector, dict(meta)

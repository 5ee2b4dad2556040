"""Merging fine-tuning runs: several adapters combined into one (linear, TIES, DARE), or one folded into W₀.

``merge_runs(folders, out, how=..., weights=..., density=..., seed=..., fold=...)`` is a job generator
(progress, cancel) that returns the summary ``lm-workbench finetune-merge`` prints:

- one folder: its adapter is folded into the base weights (``fold_run``): a plain model folder whose
  method is ``full`` (what ``finetune-merge DIR --out DIR2`` always did for a LoRA run);
- several folders: one combined adapter run folder (``combine_runs``, the rules of ``merge_math``),
  which opens in ``predict`` like any fine-tuning output; with ``fold`` it is then folded as above.
  ``linear`` is exact task arithmetic, Σ wᵢ·ΔWᵢ for any weights (LoRA: the factors concatenated, rank
  Σrᵢ; IA³: l' = 1 + Σ wᵢ·(lᵢ − 1)); ``linear-factors``, ``ties``, ``dare`` and ``dare-ties`` are peft's
  rules on the LoRA factors A and B separately, which carry cross terms BᵢAⱼ, and the summary's notes
  say so.

What can merge is read from the saved adapter, not from the method's name, so any method whose output
is a peft adapter of a mergeable type works: LoRA (and DoRA, rsLoRA, which are LoRA in peft's config)
and IA³. Everything else is refused with the reason (``cannot_merge_reason``). Combining also needs
one base, one task, one label set, one adapter type, weights not all zero and, for LoRA under a
factor-wise rule, one rank (peft's rule); DoRA runs are folded one at a time (DoRA rescales each column
of W₀ + ΔW to a learned norm, so no adapter adds up Σ wᵢ·ΔWᵢ). The task heads are combined with the
same weights as the adapters (Σ wᵢ·headᵢ), and the summary says so.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.merge_math import (
    DENSITY_HOWS, FACTOR_HOWS, HOWS, PEFT_COMBINATION, SEEDED_HOWS, combine_lora_factors, concat_lora_factors,
    ia3_task_arithmetic, weighted_sum,
)
from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER, read_manifest, write_manifest
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

MERGEABLE_PEFT_TYPES = ("LORA", "IA3")
PEFT_CONFIG = "adapter_config.json"
PEFT_WEIGHTS = "adapter_model.safetensors"
MERGE_FILE = "merge.json"  # in a merged output folder: the summary below
HEADS_NOTE = "the task heads were combined with the same weights as the adapters (Σ wᵢ·headᵢ)"
EXACT_LORA_NOTE = ("linear on LoRA concatenates the runs' factors (rank {rank} = Σ rᵢ, α = {rank}): the merged "
                   "update is Σ wᵢ·ΔWᵢ exactly")
FACTORS_NOTE = ("linear-factors on LoRA combines the factors A and B separately, as peft's linear does: the result "
                "is (Σ √(wᵢsᵢ)·Bᵢ)(Σ √(wᵢsᵢ)·Aᵢ), not Σ wᵢ·ΔWᵢ (it carries the cross terms Bᵢ·Aⱼ); "
                "linear gives Σ wᵢ·ΔWᵢ exactly")
FACTOR_RULE_NOTE = ("{how} on LoRA works on the factors A and B separately, entry by entry, as peft's {peft} does "
                    "(each run's factors weighted by √|wᵢsᵢ|): the merged update B'·A' carries the cross terms "
                    "Bᵢ·Aⱼ and is not {how} applied to the updates ΔWᵢ")
EXACT_IA3_NOTE = "linear on IA³ gives l' = 1 + Σ wᵢ·(lᵢ − 1): the merged change to each weight is Σ wᵢ·ΔWᵢ exactly"
IA3_FACTORS_NOTE = ("linear-factors on IA³ is peft's l' = Σ wᵢ·lᵢ, which is Σ wᵢ·ΔWᵢ only when the weights sum to "
                    "1 (they sum to {total:g}); linear gives Σ wᵢ·ΔWᵢ for any weights")
FOLD_NOTE = "the adapter was folded into the base weights: a plain model folder (method full)"

_REASONS = {
    "PREFIX_TUNING": ("prefix tuning cannot be merged: its trained keys and values are extra positions every "
                      "attention layer attends to, not a change to a weight matrix"),
    "PROMPT_TUNING": ("prompt tuning cannot be merged: its trained vectors are extra input embeddings, not a "
                      "change to a weight matrix"),
    "P_TUNING": "p-tuning cannot be merged: its trained vectors are extra input embeddings",
    "bottleneck": ("{method} adapters cannot be merged: an adapter adds a non-linear module f(h·W_down)·W_up "
                   "on the residual path, which no weight matrix can absorb"),
    "bitfit": ("bitfit cannot be merged: it trains the base's own bias terms and the head, not an adapter "
               "beside W₀"),
    "features": "features cannot be merged: the encoder stays frozen and only a head on top was trained",
    "model": "a {method} run is a whole model already: there is nothing to merge into its weights",
}


@dataclass
class MergeSource:
    """One fine-tuning output folder as merging sees it."""

    folder: Path
    manifest: dict[str, Any]
    adapter: dict[str, Any]  # the adapter folder's adapter_config.json ({} for a whole model)
    whole_model: bool  # the adapter folder is a whole model (full fine-tuning, an earlier merge)

    @property
    def method(self) -> str:
        return str(self.manifest.get("method", "?"))

    @property
    def base(self) -> str:
        return str(self.manifest.get("base_model", ""))

    @property
    def peft_type(self) -> str | None:
        return self.adapter.get("peft_type")

    @property
    def rank(self) -> int | None:
        r = self.adapter.get("r")
        return int(r) if r is not None else None

    @property
    def scaling(self) -> float:
        """LoRA's α/r (α/√r with rsLoRA), the factor peft multiplies B·A by."""
        r, alpha = float(self.adapter["r"]), float(self.adapter["lora_alpha"])
        return alpha / math.sqrt(r) if self.adapter.get("use_rslora") else alpha / r

    @property
    def name(self) -> str:
        return self.folder.name


def read_source(folder: str | Path) -> MergeSource:
    """A finished run's manifest and its adapter's config; a one-line error for anything else."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    adapter = folder / ADAPTER_FOLDER
    if not adapter.is_dir():
        raise WorkbenchError(f"{folder} has no {ADAPTER_FOLDER}/ folder: the run did not finish")
    if (adapter / "config.json").is_file():
        return MergeSource(folder, manifest, {}, True)
    config_file = adapter / PEFT_CONFIG
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {config_file}: {exc}") from None
    return MergeSource(folder, manifest, config if isinstance(config, dict) else {}, False)


def cannot_merge_reason(source: MergeSource) -> str | None:
    """Why this run's output cannot be folded or combined (None when it can)."""
    method = source.method
    if source.whole_model:
        return _REASONS["model"].format(method=method)
    if source.peft_type in MERGEABLE_PEFT_TYPES:
        return None
    if source.peft_type in _REASONS:
        return _REASONS[source.peft_type]
    own = str(source.adapter.get("method", ""))
    key = "bottleneck" if own in ("houlsby", "pfeiffer", "bottleneck") else own
    if key in _REASONS:
        return _REASONS[key].format(method=method)
    kind = f"a peft {source.peft_type} adapter" if source.peft_type else "not a peft adapter"
    return (f"{method} cannot be merged: its output is {kind}; the workbench merges LoRA (with DoRA and rsLoRA) "
            "and IA³ adapters")


def check_mergeable(source: MergeSource) -> None:
    reason = cannot_merge_reason(source)
    if reason is not None:
        raise WorkbenchError(f"{source.folder}: {reason}")


def check_weights(weights: Sequence[float]) -> None:
    """Refuse weights that are not finite numbers, or all zero (a merge that would undo every run)."""
    if not all(math.isfinite(float(w)) for w in weights):
        raise WorkbenchError("--weights must be finite numbers")
    if len(weights) > 1 and all(float(w) == 0.0 for w in weights):
        raise WorkbenchError("the weights (--weights) are all 0: the merged adapter would change nothing and the "
                             "heads would be zero (every answer equally likely); give one weight that is not 0")


def check_combinable(sources: Sequence[MergeSource], how: str, weights: Sequence[float] | None = None) -> None:
    """Refuse runs that cannot be combined into one adapter, naming what differs (and all-zero ``weights``)."""
    if how not in HOWS:
        raise WorkbenchError(f"--how must be one of {', '.join(HOWS)}, not {how!r}")
    if weights is not None:
        check_weights(weights)
    for source in sources:
        check_mergeable(source)
    first = sources[0]
    for other in sources[1:]:
        if Path(other.base).resolve() != Path(first.base).resolve():
            raise WorkbenchError(f"the runs are on different bases: {first.name} on {first.base}, {other.name} on "
                                 f"{other.base}; only runs fine-tuned from one base model can be merged")
        if other.manifest.get("task") != first.manifest.get("task"):
            raise WorkbenchError(f"the runs are of different tasks: {first.name} {first.manifest.get('task')}, "
                                 f"{other.name} {other.manifest.get('task')}")
        labels_a, labels_b = list(first.manifest.get("labels") or []), list(other.manifest.get("labels") or [])
        if labels_a != labels_b:
            raise WorkbenchError(f"the runs have different label sets: {first.name} {labels_a}, {other.name} "
                                 f"{labels_b}; their heads cannot be combined")
        if other.peft_type != first.peft_type:
            raise WorkbenchError(f"{first.name} is a {first.peft_type} adapter and {other.name} a {other.peft_type} "
                                 "one; only adapters of one type combine")
        if first.peft_type == "LORA" and how in FACTOR_HOWS and other.rank != first.rank:
            raise WorkbenchError(f"the runs have different ranks: r={first.rank} ({first.name}) and r={other.rank} "
                                 f"({other.name}); {how} combines LoRA factors entry by entry, which needs equal "
                                 "ranks (linear concatenates them and takes any ranks)")
    for source in sources:
        if source.adapter.get("use_dora"):
            raise WorkbenchError(f"{source.name} is a DoRA run: DoRA rescales each column of W₀ + ΔW to a learned "
                                 "norm, so no adapter adds up Σ wᵢ·ΔWᵢ; fold each DoRA run on its own (one folder)")
        if source.adapter.get("rank_pattern") or source.adapter.get("alpha_pattern"):
            raise WorkbenchError(f"{source.name} has per-layer ranks or alphas; only a single rank combines")
    if first.peft_type == "IA3" and how not in ("linear", "linear-factors"):
        raise WorkbenchError(f"IA³ adapters combine only linearly (linear: l' = 1 + Σ wᵢ·(lᵢ − 1); linear-factors: "
                             f"peft's l' = Σ wᵢ·lᵢ), not by {how}")


def _factor_split(key: str) -> tuple[str, str] | None:
    """(the layer's name pattern with ``{}`` for A or B, "A"|"B") for a LoRA factor's tensor name, else None."""
    for which in ("A", "B"):
        marker = f".lora_{which}."
        if marker in key:
            head, tail = key.split(marker, 1)
            return f"{head}.lora_{{}}.{tail}", which
    return None


def merged_rank(sources: Sequence[MergeSource], how: str) -> int | None:
    """The combined LoRA adapter's rank: Σ rᵢ for ``linear`` (concatenated), else the runs' one r; None for IA³."""
    if sources[0].peft_type != "LORA":
        return None
    ranks = [int(s.rank or 0) for s in sources]
    return sum(ranks) if how == "linear" else ranks[0]


def _combined_tensors(sources: Sequence[MergeSource], weights: Sequence[float], how: str, density: float,
                      cancel: CancelToken) -> Generator[Progress, None, dict[str, Any]]:
    from safetensors.torch import load_file

    states = [load_file(str(s.folder / ADAPTER_FOLDER / PEFT_WEIGHTS)) for s in sources]
    lora = sources[0].peft_type == "LORA"
    scalings = [s.scaling for s in sources] if lora else [1.0] * len(sources)
    rank = merged_rank(sources, how)
    names = list(dict.fromkeys(k for state in states for k in state))  # the order of the first file, then new ones
    layers = list(dict.fromkeys(split[0] for k in names if lora and (split := _factor_split(k)) is not None))
    out: dict[str, Any] = {}
    for i, layer in enumerate(layers):
        cancel.check()
        a_key, b_key = layer.format("A"), layer.format("B")
        have = [j for j, state in enumerate(states) if a_key in state and b_key in state]
        a_factors, b_factors = [states[j][a_key] for j in have], [states[j][b_key] for j in have]
        if how == "linear":
            out[a_key], out[b_key] = concat_lora_factors(a_factors, b_factors, [weights[j] for j in have],
                                                         [scalings[j] for j in have], int(rank or 0))
        else:
            out[a_key], out[b_key] = combine_lora_factors(a_factors, b_factors, [weights[j] for j in have],
                                                          [scalings[j] for j in have], how, density)
        yield Progress(i + 1, len(layers) + 1, f"combined {i + 1} of {len(layers)} adapted layers")
    for key in names:
        if lora and _factor_split(key) is not None:
            continue
        if lora and "lora_" in key:
            raise WorkbenchError(f"{key}: a LoRA tensor with no combining rule here (only the A and B factors combine)")
        missing = [sources[j].name for j, state in enumerate(states) if key not in state]
        if "ia3_l" in key:  # IA³'s vectors; where a run does not adapt the layer, only the runs that do count
            have = [j for j, state in enumerate(states) if key in state]
            rule = ia3_task_arithmetic if how == "linear" else weighted_sum
            out[key] = rule([states[j][key] for j in have], [weights[j] for j in have])
            continue
        if missing:
            raise WorkbenchError(f"{', '.join(missing)} has no {key}: the runs' heads differ")
        out[key] = weighted_sum([state[key] for state in states], weights)
    return out


def _combined_config(sources: Sequence[MergeSource], how: str) -> dict[str, Any]:
    """The first adapter's config with peft's changes: rank R (``merged_rank``), α = R (scaling 1: each run's
    own scaling is in the factors), the union of targets."""
    config = dict(sources[0].adapter)

    def union(field: str) -> Any:
        values = [s.adapter.get(field) for s in sources]
        if all(v is None for v in values):
            return None
        if any(isinstance(v, str) for v in values):
            return "|".join(f"({v})" for v in values if v)
        return sorted({name for v in values for name in (v or [])})

    config["target_modules"] = union("target_modules")
    if config.get("peft_type") == "LORA":
        rank = merged_rank(sources, how)
        config.update(r=rank, lora_alpha=rank, use_rslora=False, rank_pattern={}, alpha_pattern={})
    else:
        config["feedforward_modules"] = union("feedforward_modules")
    return config


def combine_runs(sources: Sequence[MergeSource], weights: Sequence[float], out: Path, *, how: str,
                 density: float, seed: int, cancel: CancelToken = NEVER_CANCELLED
                 ) -> Generator[Progress, None, Path]:
    """Write one adapter run folder at ``out`` combining ``sources`` (checked by ``check_combinable``)."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(seed)  # DARE's random drops
    tensors = yield from _combined_tensors(sources, weights, how, density, cancel)
    adapter = out / ADAPTER_FOLDER
    shutil.rmtree(adapter, ignore_errors=True)
    adapter.mkdir(parents=True)
    save_file(tensors, str(adapter / PEFT_WEIGHTS), metadata={"format": "pt"})
    config = _combined_config(sources, how)
    (adapter / PEFT_CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    first = sources[0].manifest
    method_config = dict(first.get("method_config") or {})
    if config.get("peft_type") == "LORA":
        method_config.update({k: config["r"] for k in ("rank", "alpha") if k in method_config})
    write_manifest(out, base_model=first["base_model"], task=first["task"], method=first["method"],
                   method_config=method_config, labels=first.get("labels") or [],
                   text_columns=first.get("text_columns"), max_length=first["max_length"], run_id=None,
                   merged_from=[str(s.folder.resolve()) for s in sources],
                   merge={"how": how, "weights": list(weights), "density": density, "seed": seed})
    return out


class _PeftLoader:
    """Loads any saved peft adapter onto a fresh task model (what ``load_finetuned`` asks of a method)."""

    @staticmethod
    def load(base_model: Any, folder: Path) -> Any:
        from lm_workbench.engine.finetune.methods.peft_bridge import load_peft

        return load_peft(base_model, folder)


def fold_run(source: MergeSource, out: Path) -> Path:
    """Fold ``source``'s adapter into its base weights: a ``full`` output folder at ``out``."""
    from lm_workbench.engine.finetune.methods.peft_bridge import merge_peft
    from lm_workbench.engine.finetune.saved import load_finetuned

    check_mergeable(source)
    tuned = load_finetuned(source.folder, _PeftLoader())
    merged = merge_peft(tuned.model)
    adapter = out / ADAPTER_FOLDER
    shutil.rmtree(adapter, ignore_errors=True)
    adapter.mkdir(parents=True)
    merged.save_pretrained(adapter, safe_serialization=True)
    tuned.tokenizer.save_pretrained(adapter)
    manifest = source.manifest
    extra = {k: v for k, v in manifest.items() if k not in ("format", "base_model", "task", "method",
                                                            "method_config", "labels", "text_columns",
                                                            "max_length", "run_id", "merged_from")}
    write_manifest(out, base_model=manifest["base_model"], task=manifest["task"], method="full", method_config={},
                   labels=manifest.get("labels") or [], text_columns=manifest.get("text_columns"),
                   max_length=manifest["max_length"], run_id=manifest.get("run_id"),
                   merged_from=manifest.get("merged_from") or str(source.folder.resolve()), **extra)
    return out


def parse_weights(text: str | Sequence[float] | None, count: int) -> list[float]:
    """``--weights 0.5,0.5`` as numbers, one per run (default: 1/n each; one run: 1)."""
    if text is None or text == "":
        return [1.0 / count] * count
    items = [str(t).strip() for t in (text.split(",") if isinstance(text, str) else text)]
    try:
        weights = [float(t) for t in items if t != ""]
    except ValueError:
        raise WorkbenchError(f"--weights must be numbers separated by commas, not {text!r}") from None
    if len(weights) != count:
        raise WorkbenchError(f"--weights gives {len(weights)} number(s) for {count} run(s)")
    check_weights(weights)
    return weights


def combine_notes(sources: Sequence[MergeSource], weights: Sequence[float], how: str) -> list[str]:
    """What a combination of several runs did, in words (the summary's ``notes``)."""
    notes = [HEADS_NOTE]
    if sources[0].peft_type == "LORA":
        if how == "linear":
            notes.append(EXACT_LORA_NOTE.format(rank=merged_rank(sources, how)))
        elif how == "linear-factors":
            notes.append(FACTORS_NOTE)
        else:
            notes.append(FACTOR_RULE_NOTE.format(how=how, peft=PEFT_COMBINATION[how]))
    elif how == "linear":
        notes.append(EXACT_IA3_NOTE)
    else:
        notes.append(IA3_FACTORS_NOTE.format(total=sum(weights)))
    return notes


def merge_runs(folders: Sequence[str | Path], out: str | Path, *, how: str = "linear",
               weights: str | Sequence[float] | None = None, density: float = 0.5, seed: int = 0,
               fold: bool = False, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, dict[str, Any]]:
    """Merge ``folders`` into ``out`` (see the module docstring); returns the summary (also ``out/merge.json``)."""
    if not folders:
        raise WorkbenchError("name at least one fine-tuning output folder to merge")
    out = Path(out)
    sources = [read_source(f) for f in folders]
    if any(out.resolve() == s.folder.resolve() for s in sources):
        raise WorkbenchError("--out must be another folder than the runs'")
    chosen = parse_weights(weights, len(sources))
    if how in DENSITY_HOWS and not 0.0 < float(density) <= 1.0:
        raise WorkbenchError(f"--density must be in (0, 1], not {density}")
    folded = fold or len(sources) == 1
    notes = []
    if len(sources) == 1:
        check_mergeable(sources[0])
        if weights is not None and chosen != [1.0]:
            raise WorkbenchError("one run is folded as it is: give --weights only when combining several runs")
        yield Progress(0, 1, f"folding {sources[0].name} into its base weights")
        fold_run(sources[0], out)
        method = "full"
    else:
        check_combinable(sources, how, chosen)
        yield Progress(0, 1, f"combining {len(sources)} runs ({how})")
        if folded:
            with tempfile.TemporaryDirectory(prefix=".combining-", dir=out.parent if out.parent.is_dir() else None
                                             ) as tmp:
                combined = yield from combine_runs(sources, chosen, Path(tmp), how=how, density=density, seed=seed,
                                                   cancel=cancel)
                cancel.check()
                yield Progress(1, 2, "folding the combined adapter into the base weights")
                fold_run(read_source(combined), out)
            method = "full"
        else:
            yield from combine_runs(sources, chosen, out, how=how, density=density, seed=seed, cancel=cancel)
            method = sources[0].method
        notes += combine_notes(sources, chosen, how)
    if folded:
        notes.append(FOLD_NOTE)
    resolved = [str(s.folder.resolve()) for s in sources]
    summary = {"out_dir": str(out), "out": str(out), "method": method,
               "merged_from": resolved[0] if len(resolved) == 1 else resolved,
               "how": how if len(sources) > 1 else "fold", "weights": chosen, "sources": resolved,
               "density": density if how in DENSITY_HOWS and len(sources) > 1 else None,
               "seed": seed if how in SEEDED_HOWS and len(sources) > 1 else None,
               "folded": folded, "adapter_type": sources[0].peft_type,
               "rank": merged_rank(sources, how) if len(sources) > 1 else None, "notes": notes}
    (out / MERGE_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    yield Progress(1, 1, f"merged into {out}")
    return summary

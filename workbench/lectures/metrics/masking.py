"""The masking lab's metrics: what the step's objective does to its text (a tokenizer is all it needs).

The preview is the view's (``lm_workbench.masking_lab.preview.preview_for_seed``: the first draw of a generator
seeded with the step's ``seed``), on the step's ``tokenizer`` (or its model's), with the objective's defaults
and then the step's ``config``. The rates are ``measure_rates``'s: ``selected`` of the tokens that are not
special; ``mask``, ``random``, ``keep``, ``deleted`` of the selected; ``moved`` and ``inserted`` of the
eligible. With ``samples`` (the statistics panel) the rates are over that many draws, the first included, as
the panel measures them; without, over the one draw the preview shows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lm_workbench.lectures.metrics.base import Metric, StepRun, metrics_of


def _setup(run: StepRun) -> dict[str, Any]:
    def build() -> dict[str, Any]:
        from lm_workbench.models.spec_kinds import load_spec_tokenizer
        from lm_workbench.engine.objectives.config_fields import validate_config
        from lm_workbench.extensions.registry import ObjectiveRegistry
        from lm_workbench.masking_lab.preview import encode_text, preview_for_seed
        from lm_workbench.settings import load_settings

        settings = load_settings()
        registry = ObjectiveRegistry.discover(settings)
        name = str(run.settings.get("objective", "mlm"))
        objective = registry.objective(name)
        config = dataclasses.replace(objective.default_config(), **dict(run.settings.get("config") or {}))
        validate_config(config, objective.name)
        tokenizer = load_spec_tokenizer(str(run.settings.get("tokenizer") or run.model),
                                        trust_remote_code=settings.trust_remote_code)
        objective.check_requirements(tokenizer)
        ids, _full = encode_text(tokenizer, run.text())
        seed = int(run.settings.get("seed", 0))
        preview = preview_for_seed(registry, objective.name, ids, tokenizer, config, seed)
        return {"registry": registry, "name": objective.name, "tokenizer": tokenizer, "config": config, "ids": ids,
                "seed": seed, "preview": preview}

    return run.once("setup", build)


def _rates(run: StepRun) -> dict[str, float]:
    def build() -> dict[str, float]:
        from lm_workbench.masking_lab.preview import measure_rates, sample_rates, special_mask

        s = _setup(run)
        samples = run.settings.get("samples")
        if samples:
            return sample_rates(s["registry"], s["name"], s["ids"], s["tokenizer"], s["config"], s["seed"],
                                int(samples))
        return measure_rates([s["preview"]], special_mask(s["tokenizer"]))

    return run.once("rates", build)


def _rate(name: str) -> Any:
    return lambda run, args: _rates(run)[name]


def _count(kind: str, where: str) -> Any:
    def count(run: StepRun, args: dict[str, Any]) -> float:
        from lm_workbench.engine.plugin_api import PositionKind

        p = _setup(run)["preview"]
        kinds = p.kinds if where == "input" else p.original_kinds
        return float(sum(k is PositionKind(kind) for k in kinds))

    return count


def target_sentinels(run: StepRun, args: dict[str, Any]) -> float:
    """Sentinel tokens in the target (T5: the target lists each span after its sentinel)."""
    s = _setup(run)
    tokens = s["tokenizer"].convert_ids_to_tokens([i for i in s["preview"].labels if i >= 0])
    sentinels = set(s["tokenizer"].convert_ids_to_tokens(
        [i for i, k in zip(s["preview"].input_ids, s["preview"].kinds) if k.value == "sentinel"]))
    return float(sum(t in sentinels for t in tokens))


def changed(run: StepRun, args: dict[str, Any]) -> float:
    """1 when the input the model reads differs from the original text's tokens, else 0."""
    p = _setup(run)["preview"]
    return float(list(p.input_ids) != list(p.original))


METRICS = metrics_of(
    "masking_lab",
    *(Metric(name, _rate(name), help_) for name, help_ in (
        ("selected", "share of the tokens that are not special that the objective picks"),
        ("mask", "share of the picked tokens that become the mask token (or a sentinel)"),
        ("random", "share of the picked tokens replaced by a random token"),
        ("keep", "share of the picked tokens left as they are"),
        ("deleted", "share of the picked tokens deleted"),
        ("moved", "share of the tokens moved to another place (permutation, rotation)"),
        ("inserted", "tokens inserted (zero-length spans), as a share of the eligible ones"))),
    Metric("picked_tokens", lambda run, args: float(sum(
        k.value in ("masked", "random", "kept", "deleted", "sentinel") for k in _setup(run)["preview"].original_kinds)),
        "how many of the original tokens the one draw picks"),
    Metric("mask_tokens", _count("masked", "input"), "mask tokens in the input the model reads (one draw)"),
    Metric("sentinels", _count("sentinel", "input"), "sentinel tokens in the input (one draw)"),
    Metric("target_sentinels", target_sentinels, "sentinel tokens in the target (one draw)"),
    Metric("changed", changed, "1 when the model's input differs from the original tokens (one draw)"),
)

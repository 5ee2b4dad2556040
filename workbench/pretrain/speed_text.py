"""One line saying how fast a pre-training run went and which speed levers ran (the CLI and the Pre-train tab).

Reads the summary's ``tokens_per_s`` and ``speed`` (``lm_workbench.engine.training.speed``:
``compiled``, ``chunked_loss``, ``sparse_mlm_head``, ``bf16``, ``fused_gelu``,
``memory_reuse``, ``compile_s``, ``notes``). Light: no torch.
"""

from __future__ import annotations

from typing import Any

LEVER_LABELS = (("compiled", "torch.compile"), ("chunked_loss", "chunked LM loss"),
                ("sparse_mlm_head", "sparse MLM head"), ("bf16", "bf16"), ("fused_gelu", "fused GELU"))


def describe_speed(summary: dict[str, Any]) -> str:
    """E.g. "12,345 tokens/s on average · levers: chunked LM loss, fused GELU, memory reuse; not used: ...",
    then one line per note."""
    speed = summary.get("speed") or {}
    parts = []
    rate = summary.get("tokens_per_s")
    if isinstance(rate, (int, float)):
        parts.append(f"{rate:,.0f} tokens/s on average")
    if not speed:
        return " · ".join(parts)
    used = [label for key, label in LEVER_LABELS if speed.get(key)]
    if speed.get("memory_reuse") == "on":
        used.append("memory reuse")
    unused = [label for key, label in LEVER_LABELS[:4] if not speed.get(key)]
    text = "levers: " + (", ".join(used) or "none")
    if unused:
        text += "; not used: " + ", ".join(unused)
    if speed.get("compile_s") is not None:
        text += f" (compiling took {speed['compile_s']:.0f} s, not counted in tokens/s)"
    parts.append(text)
    line = " · ".join(parts)
    notes = [str(n) for n in speed.get("notes") or []]
    return line + ("".join(f"\n{n}" for n in notes))


__all__ = ["describe_speed"]

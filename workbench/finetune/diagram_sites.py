"""What the fine-tuning form's attachment diagram lights for a method, a task and the loaded model (issue 49.9).

A method declares where it attaches (``Attachment.sites``) without knowing the task or the model; drawn as is,
the diagram lit a "Task head" for the sentence-embedding task (which trains none) and only Q and V for LoRA on
GPT-2, whose ``c_attn`` computes Q, K and V with one matrix. ``diagram_sites`` corrects the sites for the task
and the model and says why in ``notes`` (shown under the diagram). Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

from lm_workbench.engine.anatomy.tables import FUSED_QKV  # model_type -> the one matrix computing Q, K and V

QKV = ("query", "key", "value")
NO_HEAD_TASKS = {"sentence-embedding": "no task head: the sentence task trains the encoder and pools its output"}


@dataclass(frozen=True)
class DiagramSites:
    sites: tuple[str, ...]  # what the diagram lights (a subset of lm_workbench.engine.finetune.names.SITES)
    notes: tuple[str, ...]  # one line each, under the diagram


def diagram_sites(sites: tuple[str, ...] | list[str], task: str, model_type: str | None = None) -> DiagramSites:
    """``sites`` as the method declares them, corrected for ``task`` and the loaded model's ``model_type``."""
    shown = list(dict.fromkeys(sites))
    notes: list[str] = []
    if task in NO_HEAD_TASKS and "head" in shown:
        shown.remove("head")
        notes.append(NO_HEAD_TASKS[task].capitalize() + ".")
    fused = FUSED_QKV.get(model_type or "")
    if fused and any(site in shown for site in QKV):
        chosen = [site for site in QKV if site in shown]
        at = min(shown.index(site) for site in chosen)
        rest = [site for site in shown if site not in QKV]
        shown = rest[:at] + list(QKV) + rest[at:]
        named = " and ".join(site[0].upper() for site in chosen)
        notes.append(f"{model_type}'s {fused} computes Q, K and V with one matrix: adapting it for {named} "
                     "adapts all three.")
    return DiagramSites(tuple(shown), tuple(notes))


__all__ = ["DiagramSites", "FUSED_QKV", "diagram_sites"]

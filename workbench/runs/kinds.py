"""The kinds of long runs the runs browser knows, and how to redo each one.

Each ``RunKind`` names the long-run lane target that runs it and turns a
run's stored ``params`` back into the equivalent command line, so "run again
with this config" (``LongRunLane.submit(kind.target, params, kind=kind.kind)``)
and "copy as CLI command" work for every kind without the browser knowing any
of them. Fine-tuning, probing, prompt evaluation and the tuned lens add their entries here.
Kept light: no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class RunKind:
    """A kind of run: the store's ``kind`` value, the job target, a title and the CLI line for given params."""

    kind: str
    target: str
    title: str
    command: Callable[[dict[str, Any]], str]
    resumable: bool = False  # a stopped run continues from its checkpoints (params "resume" = its out_dir)

    def cli_command(self, params: dict[str, Any]) -> str:
        """The ``lm-workbench ...`` command line that repeats a run with these params.

        Params this version cannot read (a run stored by another version) raise a ``WorkbenchError``.
        """
        from engine.errors import WorkbenchError

        try:
            return self.command(params)
        except (KeyError, TypeError, ValueError) as exc:
            raise WorkbenchError(f"this {self.title.lower()} run's settings cannot be turned into a command "
                                 f"line by this version (missing or odd: {exc})") from None


def _pretrain_command(params: dict[str, Any]) -> str:
    from workbench.pretrain.spec import PretrainSpec

    return PretrainSpec.from_dict(params).cli_command()


PRETRAIN = RunKind(kind="pretrain", target="workbench.pretrain.job:pretrain_job", title="Pre-training",
                   command=_pretrain_command, resumable=True)


def _probe_command(params: dict[str, Any]) -> str:
    from workbench.probing.spec import ProbeSpec

    return ProbeSpec.from_dict(params).cli_command()


def _sts_command(params: dict[str, Any]) -> str:
    from workbench.probing.spec import StsSpec

    return StsSpec.from_dict(params).cli_command()


PROBE = RunKind(kind="probe", target="workbench.probing.runs:probe_job", title="Layer-wise probing",
                command=_probe_command)
STS = RunKind(kind="sts", target="workbench.probing.runs:sts_job", title="Sentence similarity per layer",
              command=_sts_command)


def _prompt_eval_command(params: dict[str, Any]) -> str:
    from workbench.prompting.spec import PromptEvalSpec

    return PromptEvalSpec.from_dict(params).cli_command()


PROMPT_EVAL = RunKind(kind="prompt-eval", target="workbench.prompting.runs:prompt_eval_job",
                      title="Prompt evaluation", command=_prompt_eval_command)


def _finetune_command(params: dict[str, Any]) -> str:
    from workbench.finetune.spec import FineTuneSpec

    return FineTuneSpec.from_dict(params).cli_command()


FINETUNE = RunKind(kind="finetune", target="workbench.finetune.job:finetune_job", title="Fine-tuning",
                   command=_finetune_command, resumable=True)



def _tuned_lens_command(params: dict[str, Any]) -> str:
    from workbench.tuned_lens.spec import TunedLensSpec

    return TunedLensSpec.from_dict(params).cli_command()


TUNED_LENS = RunKind(kind="tuned-lens", target="workbench.tuned_lens.job:tuned_lens_job", title="Tuned lens",
                     command=_tuned_lens_command)

RUN_KINDS: dict[str, RunKind] = {kind.kind: kind for kind in (PRETRAIN, PROBE, STS, FINETUNE, PROMPT_EVAL, TUNED_LENS)}


def run_kind(kind: str) -> RunKind | None:
    """The entry for a store ``kind``, or None for a kind this version does not know."""
    return RUN_KINDS.get(kind)


def resume_params(kind: RunKind, run: dict[str, Any]) -> dict[str, Any] | None:
    """The params that continue a stopped run from its newest checkpoint, or None when it cannot be resumed
    (its kind does not resume, it finished or is still going, or it left no checkpoint)."""
    from workbench.runs.resume import resumable_checkpoint

    params = dict(run.get("params") or {})
    if not kind.resumable or run.get("status") not in ("cancelled", "failed", "interrupted"):
        return None
    if resumable_checkpoint(params.get("out_dir")) is None:
        return None
    params["resume"] = str(params["out_dir"])
    return params

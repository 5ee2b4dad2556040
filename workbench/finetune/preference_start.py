"""Where a preference run starts: a model folder, or the output folder of an earlier instruct (or preference) run.

DPO is the step after instruction tuning, so ``finetune RUN_FOLDER --task preference`` starts from what that
run made: a full fine-tuning run's ``adapter/`` is a whole model and is used as it is; a LoRA run is folded into
its base weights first (``merge_output``) into ``OUT/start/`` (once: a resumed run finds it there). The chat
template the earlier run trained with (stored in its manifest) is used again, so the prompts look the same as
in instruction tuning; otherwise the template is the model's own, or the plain one when it has none (said).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError

START_FOLDER = "start"  # in OUT: a LoRA run's model merged into its base, where this run starts
LM_TASKS = ("instruct", "preference")  # the runs whose output is a language model to continue from
TEMPLATE_KEYS = ("chat_template", "template")  # where a run's manifest may keep the template it trained with


@dataclass(frozen=True)
class StartingPoint:
    folder: Path  # the model folder to load (a run to merge: its base, until ``materialise``)
    run_folder: Path | None = None  # the earlier run's output folder, when starting from one
    merge: bool = False  # the earlier run's weights must be merged into its base first
    template: dict[str, str] | None = None  # {"text", "source"} of the earlier run's chat template


def is_run_folder(model: str) -> bool:
    from lm_workbench.engine.finetune.saved import MANIFEST_FILE

    return bool(model) and (Path(model).expanduser() / MANIFEST_FILE).is_file()


def stored_template(manifest: dict[str, Any]) -> dict[str, str] | None:
    """The chat template a run's manifest says it trained with, as ``{"text", "source"}`` (None: none kept)."""
    for key in TEMPLATE_KEYS:
        value = manifest.get(key)
        if isinstance(value, str) and value.strip():
            return {"text": value, "source": "run"}
        if isinstance(value, dict) and isinstance(value.get("text"), str) and value["text"].strip():
            return {"text": value["text"], "source": str(value.get("source") or "run")}
    return None


def starting_point(model: str, resolve: Any) -> StartingPoint:
    """What ``model`` names as a start (cheap: reads a manifest at most). ``resolve(model) -> Path`` resolves
    anything that is not a run's output folder."""
    if not is_run_folder(model):
        return StartingPoint(Path(resolve(model)))
    from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER, read_manifest

    run = Path(model).expanduser().resolve()
    manifest = read_manifest(run)
    task = manifest.get("task")
    if task not in LM_TASKS:
        raise WorkbenchError(f"{run} is a {task} run, whose model is not a language model; preference tuning starts "
                             f"from a model folder or an instruct run's output folder")
    adapter = run / ADAPTER_FOLDER
    if not adapter.is_dir():
        raise WorkbenchError(f"{run} has no {ADAPTER_FOLDER}/ folder: the run did not finish")
    template = stored_template(manifest)
    if (adapter / "config.json").is_file():  # a whole model (full fine-tuning, or merged)
        return StartingPoint(adapter, run, False, template)
    from lm_workbench.finetune.methods import finetune_method

    method = finetune_method(str(manifest.get("method")))
    if not getattr(method, "can_merge", False):
        raise WorkbenchError(f"{run} is a {manifest.get('method')} run, which cannot be merged into its base to start "
                             "from; start preference tuning from a full or LoRA run")
    base = Path(str(manifest.get("base_model")))
    if not (base / "config.json").is_file():
        raise WorkbenchError(f"the base model of {run} is gone: {base} has no config.json")
    return StartingPoint(base, run, True, template)


def materialise(start: StartingPoint, out_dir: Path, merge_output: Any) -> Path:
    """The folder to load: a run to merge is merged into ``OUT/start`` by ``merge_output(run, folder)`` (kept
    for a resume); else as it is."""
    if not start.merge or start.run_folder is None:
        return start.folder
    from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER

    target = Path(out_dir) / START_FOLDER
    if not (target / ADAPTER_FOLDER / "config.json").is_file():
        merge_output(start.run_folder, target)
    return target / ADAPTER_FOLDER


def run_template(start: StartingPoint, tokenizer: Any, choice: str | None, encoder_decoder: bool = False) -> Any:
    """The ``ChatTemplate`` of the run: ``choice`` when given (plain or a file); else (none, or ``auto``: the
    spec's default) the earlier run's stored template; else the model's own, or plain, said in the template's note.
    An encoder-decoder has none: ``PROMPT_AS_IS`` (the prompt text to the encoder as is; a template chosen is
    said to be unused), unless it starts from an instruct run that wrote its prompts through one: its encoder
    then reads them as it learned to (that template again, said)."""
    from lm_workbench.engine.instruct.template import ChatTemplate, resolve_template

    if encoder_decoder:
        from dataclasses import replace

        from lm_workbench.engine.preference.encoding import PROMPT_AS_IS

        unused = f" (--template {choice} is not used)" if choice and choice != "auto" else ""
        if start.template is not None and start.template.get("source") != PROMPT_AS_IS.source:
            return ChatTemplate(start.template["text"], start.template.get("source") or "run",
                                f"the chat template of {start.run_folder} is used again: its encoder learned to read "
                                f"prompts written through it{unused}")
        return replace(PROMPT_AS_IS, note=PROMPT_AS_IS.note + unused)
    if choice and choice != "auto":
        return resolve_template(tokenizer, choice)
    if start.template is not None:
        return ChatTemplate(start.template["text"], start.template.get("source") or "run",
                            f"the chat template of {start.run_folder} is used again")
    return resolve_template(tokenizer, "auto")

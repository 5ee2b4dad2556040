"""``generate --chat``: a prompt answered through a chat template, by a model or by an instruct run's model.

``open_chat_model(spec, load)``: an instruct output folder (``finetune.json`` with task ``instruct``) is
reloaded on its base with its method (``lm_workbench.finetune.train.open_output``: a LoRA or prefix run's adapter on a
fresh base) and answers with the chat template stored with the run; any other model is loaded by ``load`` (the
CLI's ``load_for``) and uses ``--template`` (auto: its own chat template, else the plain one, said in ``note``).
``chat_reply`` renders the prompt as one user turn with the generation prompt and generates (greedy, or sampled
with the seed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError


@dataclass
class ChatModel:
    model: Any
    tokenizer: Any
    template: Any  # lm_workbench.engine.instruct.template.ChatTemplate
    max_length: int
    source: str  # "instruct run" or "model"


def instruct_manifest(spec: str) -> dict[str, Any] | None:
    """The manifest when ``spec`` is a fine-tuning output folder of the instruct task, else None."""
    path = Path(spec).expanduser() / "finetune.json"
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("task") == "instruct" else None


def open_chat_model(spec: str, load: Callable[[], Any], template_choice: str | None = None) -> ChatModel:
    from lm_workbench.engine.instruct.template import ChatTemplate, resolve_template

    manifest = instruct_manifest(spec)
    if manifest is not None:
        from lm_workbench.finetune.train import open_output

        tuned = open_output(spec)
        saved = manifest.get("chat_template") or {}
        template = (resolve_template(tuned.tokenizer, template_choice) if template_choice else
                    ChatTemplate(saved.get("text", ""), saved.get("source", "plain")))
        return ChatModel(tuned.model, tuned.tokenizer, template, int(manifest.get("max_length") or 128),
                         "instruct run")
    loaded = load()
    family = str(getattr(loaded.family, "value", loaded.family))
    if family not in ("decoder", "encoder-decoder") or not loaded.info.has_lm_head:
        raise WorkbenchError(f"--chat needs a decoder or an encoder-decoder with its LM head; {spec} is not one")
    template = resolve_template(loaded.tokenizer, template_choice or "auto")
    window = loaded.info.max_positions or 1024
    return ChatModel(loaded.model, loaded.tokenizer, template, int(window), "model")


def chat_reply(chat: ChatModel, text: str, *, max_new_tokens: int, sampling: Any = None) -> dict[str, Any]:
    """``{"text", "prompt", "prompt_ids", "chat_template", "note", "source"}`` for ``text`` as one user turn."""
    from lm_workbench.engine.instruct.answers import answer_prompts, is_encoder_decoder
    from lm_workbench.engine.instruct.template import as_messages, generation_prompt_ids, render

    if not text.strip():
        raise WorkbenchError("the text is empty")
    messages = as_messages(text)
    try:
        prompt = render(chat.tokenizer, chat.template, messages, add_generation_prompt=True)
    except Exception as exc:
        raise WorkbenchError(f"{chat.template.name} cannot render this prompt: {exc}") from None
    options: dict[str, Any] = {}
    if sampling is not None:
        options = {"sample": True, "seed": sampling.seed,
                   "sampling": {"temperature": sampling.temperature, "top_p": sampling.top_p, "top_k": sampling.top_k}}
    answer = answer_prompts(chat.model, chat.tokenizer, chat.template, [messages], max_length=chat.max_length,
                            max_new_tokens=max_new_tokens, batch_size=1, **options)[0]
    ids = generation_prompt_ids(chat.tokenizer, chat.template, messages, chat.max_length,
                                encoder_decoder=is_encoder_decoder(chat.model))
    return {"text": answer, "prompt": prompt, "prompt_ids": ids, "chat_template": chat.template.source,
            "note": chat.template.note, "source": chat.source}

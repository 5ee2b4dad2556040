"""Prompt tuning (Lester et al. 2021) through ``peft``: n trained input vectors prepended to the embeddings."""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, SENTENCE_TASK, Attachment, FineTuneMethod, UnifiedRow, WorkbenchError, peft_task_type, wrap_with_peft,
)
from lm_workbench.plugins.finetune_methods.peft_io import PeftIO

INITS = {"vocab": "SAMPLE_VOCAB", "random": "RANDOM", "text": "TEXT"}


@dataclass
class PromptConfig:
    num_virtual_tokens: int = setting(
        20, "n, the number of trained soft-prompt vectors put before the input's embeddings.", min=1, max=256)
    init: str = setting(
        "vocab", "How the soft prompt starts: vocab = embeddings of randomly drawn vocabulary tokens (Lester et al.'s "
        "better start), random = random vectors, text = the embeddings of init_text's tokens.", choices=tuple(INITS))
    init_text: str = setting(
        "Classify the sentiment of this text:", "The text whose token embeddings start the prompt when init is text "
        "(repeated or cut to n tokens; needs the base model's tokenizer in its folder).")


class PromptTuning(PeftIO, FineTuneMethod):
    api_version = API_VERSION
    name = "prompt"
    title = "Prompt tuning (Lester et al. 2021)"
    description = ("n trained vectors are prepended to the input embeddings; nothing inside the model changes. "
                   "Weak on small models (it catches up with fine-tuning only at billions of parameters).")
    Config = PromptConfig
    # peft prepends the virtual tokens to the outputs too, so per-token labels and answer spans would be off by n.
    tasks = frozenset({"seq-cls", "seq2seq", SENTENCE_TASK})
    default_lr = 3e-2
    lr_reason = ("A few input vectors steer a frozen model, so they need very large steps (Lester et al. used "
                 "0.3 with Adafactor; peft's examples 3e-2 with AdamW).")
    attachment = Attachment(sites=("embeddings", "head"), formula="input = [P; E(x)],  only P trains",
                            residual="before the first layer: extra input positions, no new residual path")
    unified = UnifiedRow(
        functional_form="P (trained input vectors)", insertion="—", representation="input",
        composition="input ← [P; E(x)]", formula="input ← [P; E(x)]",
        formula_html="input ← [<i>P</i>; <i>E</i>(<i>x</i>)]",
        note="the input, not a hidden representation: every layer's attention sees the prompt (not in Table 1)")

    def apply(self, model: nn.Module, config: PromptConfig, task: str) -> nn.Module:
        from peft import PromptTuningConfig

        self.check_task(task)
        self.check_config(config)
        if task != "seq2seq" and getattr(getattr(model, "config", None), "is_encoder_decoder", False):
            # found by the newest lane's family x method sweep: transformers raised NotImplementedError mid-step
            raise WorkbenchError(f"prompt tuning cannot adapt {type(model).__name__}: it feeds the prompt in as input "
                                 "embeddings, which an encoder-decoder's classifier does not accept; use LoRA or "
                                 "BitFit here, or prompt tuning on the sequence-to-sequence task")
        extra = {}
        if config.init == "text":
            source = getattr(getattr(model, "config", None), "_name_or_path", "")
            if not source:
                raise WorkbenchError("prompt init text needs the base model's tokenizer; this model has no folder")
            extra = {"prompt_tuning_init_text": config.init_text, "tokenizer_name_or_path": source}
        # One prompt, for the encoder's input: peft would give a seq2seq model a second one that is never used.
        peft_config = PromptTuningConfig(
            task_type=peft_task_type(task), num_virtual_tokens=config.num_virtual_tokens,
            num_transformer_submodules=1, prompt_tuning_init=INITS[config.init],
            modules_to_save=self.trained_heads(model), **extra)
        return wrap_with_peft(model, peft_config, self.name)

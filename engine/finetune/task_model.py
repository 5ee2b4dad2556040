"""The ``transformers`` task model a fine-tuning run trains: a base folder plus a fresh task head.

``build_task_model(folder, task, labels)`` loads ``AutoModelFor{SequenceClassification,
TokenClassification,QuestionAnswering,Seq2SeqLM}`` from a local model folder (safetensors only,
never remote code) with ``num_labels`` / ``id2label`` / ``label2id`` for the classification tasks.
The head is new (random, seeded by the caller); the encoder's weights are the base's. A base that
cannot do the task (sequence-to-sequence on an encoder, a family ``transformers`` has no head for)
is a ``WorkbenchError`` saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from lm_workbench.engine.anatomy.tables import is_norm_parameter
from lm_workbench.engine.errors import WorkbenchError

HEAD_CLASSES = {
    "seq-cls": "AutoModelForSequenceClassification",
    "token-cls": "AutoModelForTokenClassification",
    "qa": "AutoModelForQuestionAnswering",
    "seq2seq": "AutoModelForSeq2SeqLM",
    "sentence-embedding": "AutoModel",  # no head: the encoder's pooled token vectors are the output
    "instruct": "AutoModelForCausalLM",  # an encoder-decoder base: AutoModelForSeq2SeqLM (head_class)
    "preference": "AutoModelForCausalLM",  # the language model itself (its own LM head), tuned by DPO; an
    # encoder-decoder base: AutoModelForSeq2SeqLM (head_class)
}
TASK_WORDS = {"seq-cls": "sentence classification", "token-cls": "token classification",
              "qa": "extractive question answering", "seq2seq": "sequence-to-sequence generation",
              "sentence-embedding": "sentence embedding", "instruct": "instruction following (a language-model head)",
              "preference": "preference tuning (DPO)"}


def _config(folder: Path) -> Any:
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(folder, trust_remote_code=False)
    except Exception as exc:  # transformers raises many types here
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WorkbenchError(f"cannot read the model config in {folder}: {first}") from None


def head_class(task: str, config: Any) -> str:
    """The ``transformers`` auto class of ``task``'s model on a base with ``config``."""
    if task in ("instruct", "preference") and getattr(config, "is_encoder_decoder", False):
        return "AutoModelForSeq2SeqLM"
    return HEAD_CLASSES[task]


def check_task_support(folder: str | Path, task: str) -> None:
    """Raise ``WorkbenchError`` when the base in ``folder`` cannot be given ``task``'s head (cheap: config only)."""
    import transformers

    folder = Path(folder)
    if task not in HEAD_CLASSES:
        raise WorkbenchError(f"unknown task {task!r}; choose one of {', '.join(HEAD_CLASSES)}")
    config = _config(folder)
    kind = getattr(config, "model_type", "?")
    if task == "seq2seq" and not getattr(config, "is_encoder_decoder", False):
        raise WorkbenchError(f"the base ({kind}, {folder}) is not an encoder-decoder; "
                             f"sequence-to-sequence needs a BART or T5 base")
    architectures = list(getattr(config, "architectures", None) or [])
    if (task == "preference" and not getattr(config, "is_encoder_decoder", False) and architectures
            and not any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures)):
        raise WorkbenchError(f"preference tuning takes a decoder language model (GPT-2, Llama-style) or an "
                             f"encoder-decoder (BART, T5); {folder} holds a {', '.join(architectures)}")
    if task == "sentence-embedding" and getattr(config, "is_encoder_decoder", False):
        raise WorkbenchError(f"the base ({kind}, {folder}) is an encoder-decoder; sentence embedding trains an "
                             f"encoder (BERT, MiniLM, RoBERTa) or a decoder with mean pooling")
    auto = getattr(transformers, head_class(task, config))
    if task == "instruct" and kind in ("bert", "distilbert", "roberta", "electra", "albert", "xlm-roberta"):
        raise WorkbenchError(f"the base ({kind}, {folder}) is an encoder; instruction tuning needs a decoder "
                             f"(GPT-2, Llama-style) or an encoder-decoder (BART, T5)")
    if type(config) not in auto._model_mapping:
        raise WorkbenchError(f"transformers has no {TASK_WORDS[task]} head for {kind} models ({folder})")


def build_task_model(folder: str | Path, task: str, labels: Sequence[str] = ()) -> Any:
    """The task model for ``task`` on the base in ``folder``, in train mode, float32, on the CPU.

    ``labels`` (classification tasks) give ``num_labels`` and the ``id2label`` names the saved
    model carries.
    """
    import transformers

    from lm_workbench.engine.models.loading import quiet_transformers
    from lm_workbench.engine.models.weights import safetensors_files

    folder = Path(folder)
    check_task_support(folder, task)
    if not safetensors_files(folder):
        raise WorkbenchError(f"{folder} has no safetensors weights; fine-tuning loads only *.safetensors")
    kwargs: dict[str, Any] = {}
    if task in ("seq-cls", "token-cls"):
        if len(labels) < 2:
            raise WorkbenchError(f"{TASK_WORDS[task]} needs at least two labels, not {list(labels)}")
        kwargs = {"num_labels": len(labels), "id2label": dict(enumerate(labels)),
                  "label2id": {label: i for i, label in enumerate(labels)}}
    quiet_transformers()
    auto = getattr(transformers, head_class(task, _config(folder)))
    try:
        model, info = auto.from_pretrained(folder, use_safetensors=True, trust_remote_code=False,
                                           output_loading_info=True, **kwargs)
    except WorkbenchError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WorkbenchError(f"cannot build a {TASK_WORDS[task]} model from {folder}: {first}") from None
    fix_missing_base_weights(model, info.get("missing_keys") or [])
    return model.float().train()


HEAD_NAMES = ("classifier", "qa_outputs", "score", "lm_head", "classification_head")


def fix_missing_base_weights(model: Any, missing: Sequence[str]) -> list[str]:
    """Give the base's weights that its checkpoint lacks (a masked LM saved without BERT's pooler) values fixed
    by their names, so that training and every reload of the run build the same model (a method saves only what
    it trains, and a random pooler drawn afresh at each reload would change the predictions). The task head is
    left as built: it is trained and saved. Returns the names it set."""
    import zlib

    import torch

    std = float(getattr(model.config, "initializer_range", 0.02))
    params = dict(model.named_parameters())
    fixed = []
    for name in missing:
        if name not in params or any(part in HEAD_NAMES for part in name.split(".")):
            continue
        generator = torch.Generator().manual_seed(zlib.crc32(name.encode("utf-8")))
        with torch.no_grad():
            param = params[name]
            if name.endswith("bias"):
                param.zero_()
            elif is_norm_parameter(name):
                param.fill_(1.0)
            else:
                param.copy_(torch.randn(param.shape, generator=generator, dtype=torch.float32).to(param.dtype) * std)
        fixed.append(name)
    return fixed


def load_task_tokenizer(folder: str | Path) -> Any:
    """The base's fast tokenizer (label alignment and QA offsets need one)."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(Path(folder), trust_remote_code=False)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WorkbenchError(f"cannot load the tokenizer in {folder}: {first}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise WorkbenchError(f"the tokenizer in {folder} has no fast version; fine-tuning needs one")
    return tokenizer

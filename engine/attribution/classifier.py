"""A fine-tuned sequence classifier's label, attributed to its input tokens.

A ``seq-cls`` output folder loads through ``lm_workbench.engine.finetune.saved`` (the model rebuilt on its base with the
method's weights); ``ClassifierModel`` presents it as the attribution functions read a model, and
``classifier_target`` finds the label's logit (the predicted label unless one is named). The logit is the
pre-softmax score of the label, read from the word embeddings of the input (and pair) tokens as for the
language models. Rollout and flow read the row of the token the head pools: the first token for encoders
([CLS]), the last for decoders.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any, Iterator

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import PredictionSite, Target, position_logits, word_embeddings
from lm_workbench.engine.models.attention_switch import attention_switched
from lm_workbench.engine.models.families import Family, detect_family
from lm_workbench.engine.tokens import TokenizedText, tokenize


class ClassifierModel:
    """A fine-tuned ``seq-cls`` model (``lm_workbench.engine.finetune.saved.FineTunedModel``) as attribution reads one."""

    def __init__(self, tuned: Any, spec: str = "the fine-tuned classifier"):
        if tuned.task != "seq-cls":
            raise WorkbenchError(f"label attribution needs a sequence classifier, and {spec} is a {tuned.task} "
                                 "model")
        self.model, self.tokenizer, self.labels = tuned.model, tuned.tokenizer, tuned.labels
        self.max_length = int(tuned.manifest["max_length"])
        config = self.model.config
        self.family = SimpleNamespace(value="classifier")  # no language-model family: targets dispatch on kind
        self.base_family = detect_family(config)
        self.info = SimpleNamespace(spec=spec, vocab_size=len(self.labels), model_type=config.model_type,
                                    max_positions=self.max_length)
        self.device = SimpleNamespace(torch_device=next(self.model.parameters()).device)

    @contextlib.contextmanager
    def attention_implementation(self, name: str) -> Iterator[None]:
        inner = getattr(self.model, "base_model", self.model)
        inner = getattr(inner, "model", inner) if not hasattr(inner, "set_attn_implementation") else inner
        if not hasattr(inner, "set_attn_implementation"):
            yield
            return
        with attention_switched(self.model, name, inner=inner):
            yield


def classifier_site(model: ClassifierModel, text: str, text2: str | None = None) -> PredictionSite:
    """The input (and pair) tokenized as the classifier reads them; the position is the pooled token."""
    if not text.strip():
        raise WorkbenchError("the text is empty")
    enc = model.tokenizer(text, text2, truncation=True, max_length=model.max_length)
    ids = list(enc["input_ids"])
    tokens = model.tokenizer.convert_ids_to_tokens(ids)
    special = set(model.tokenizer.all_special_ids)
    n = len(ids)
    extra = {"token_type_ids": list(enc["token_type_ids"])} if "token_type_ids" in enc else {}
    read = tokenize(model.tokenizer, text, text2, max_length=model.max_length)  # which tokens (as trained: the start)
    tok = TokenizedText(text, text2, ids, tokens, [(0, 0)] * n, [None] * n, list(enc.get("token_type_ids", [0] * n)),
                        [i in special for i in ids], extra_inputs=extra, truncated=read.truncated,
                        full_length=read.full_length, window=read.window, pair_window=read.pair_window)
    device = model.device.torch_device
    inputs = {"input_ids": torch.tensor([ids], device=device)}
    for name, values in extra.items():
        inputs[name] = torch.tensor([values], device=device)
    position = n - 1 if model.base_family is Family.DECODER else 0
    return PredictionSite(tok, inputs, position, "classifier")


def classifier_target(model: ClassifierModel, text: str, text2: str | None = None,
                      label: str | None = None, contrast: str | None = None, second_choice: bool = False) -> Target:
    """The logit of ``label`` (default: the predicted one) for ``text`` (and ``text2``); with ``contrast``
    (another label) the logit difference label − contrast; ``second_choice``: minus the best other label's."""
    site = classifier_site(model, text, text2)
    logits = None
    if label is None or second_choice:
        with torch.no_grad():
            logits = position_logits(model, site, word_embeddings(model, site))[0].float()
    if label is None:
        index = int(torch.argmax(logits))
    elif label in model.labels:
        index = model.labels.index(label)
    else:
        raise WorkbenchError(f"the label is one of {', '.join(model.labels)}, not {label!r}")
    target = Target(site, index, model.labels[index])
    if second_choice and len(model.labels) > 1:
        others = logits.clone()
        others[index] = float("-inf")
        contrast = model.labels[int(torch.argmax(others))]
    if contrast is None or not contrast.strip():
        return target
    if contrast.strip() not in model.labels:
        raise WorkbenchError(f"“instead of” is one of the labels {', '.join(model.labels)}, not {contrast!r}")
    foil = model.labels.index(contrast.strip())
    return target.with_contrast(foil, model.labels[foil])

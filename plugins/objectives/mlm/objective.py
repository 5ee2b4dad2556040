"""Masked language modelling (Devlin et al. 2019, "BERT"; dynamic masking from Liu et al. 2019, "RoBERTa").

Following BERT's ``create_pretraining_data.py``: of the ``m`` non-special
tokens, ``n = max(1, round(rate * m))`` positions are drawn uniformly without
replacement (with whole-word masking: whole words in random order, each taken
only if it still fits the budget ``n``; the plugin API's ``select_positions``).
Each selected token independently
becomes the mask token (80%), a random ordinary token (10%) or stays (10%);
labels are the original ids at the selected positions only.

Static masking (BERT) draws an example's mask from its seed and index only,
so it is the same every epoch; dynamic masking (RoBERTa) redraws it each time
the example is batched.

With ``next_sentence_prediction`` (BERT's second task) each example becomes a
sentence pair first (see ``nsp``): ``[CLS] A [SEP] B [SEP]`` where B follows A
(IsNext, label 0) or comes from another example of the batch (NotNext,
label 1), each with probability 0.5; masking then applies to the pair and
the loss adds the cross-entropy of the [CLS] classifier. This needs
BERT's pre-training heads (``BertForPreTraining``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import (
    setting,
    CODE, IGNORE_INDEX, Batch, Family, LossContext, Objective, PositionKind, Preview, Requirements, VocabInfo,
    WorkbenchError, apply_treatments, check_shares, collate, draw_treatments, example_ids_for, example_rng,
    kinds_from_codes, masked_lm_forward, model_device, pad_rows, require_examples, select_positions,
    token_cross_entropy, vocab_info,
)
from lm_workbench.plugins.objectives.mlm.nsp import build_pairs

NSP_REQUIRES = Requirements(head="pretraining-nsp", tokens=("mask_token", "cls_token", "sep_token"))


class MaskedLM(Objective):
    name = "mlm"
    api_version = "3.0"
    families = frozenset({Family.ENCODER})
    requires = Requirements(head="mlm", tokens=("mask_token",))
    description = "Hide 15% of the tokens (80% [MASK], 10% random, 10% kept) and predict them."
    paper = ("Devlin et al. 2019, BERT: Pre-training of Deep Bidirectional Transformers; "
             "Liu et al. 2019, RoBERTa (dynamic masking)")

    @dataclass
    class MaskingConfig:
        mask_rate: float = setting(
            0.15, "Fraction of the non-special tokens selected for prediction.", min=0.0, max=1.0)
        mask_token_prob: float = setting(
            0.8, "Share of the selected tokens replaced by the mask token.", min=0.0, max=1.0)
        random_token_prob: float = setting(
            0.1, "Share of the selected tokens replaced by a random token (the rest are kept).", min=0.0, max=1.0)
        whole_word_masking: bool = setting(
            False, "Select whole words (all their subword pieces) instead of single tokens.")
        masking: str = setting(
            "dynamic", "dynamic: a new mask every time an example is seen (RoBERTa); static: the same mask every "
            "epoch, drawn from the seed and the example's index (BERT).", choices=("dynamic", "static"))
        max_predictions: int = setting(
            0, "At most this many positions per example (BERT's max_predictions_per_seq: 20 at 128 tokens, 80 at "
            "512); 0: no cap, the rate alone decides.", min=0)

    @dataclass
    class Config(MaskingConfig):
        next_sentence_prediction: bool = setting(
            False, "Also train BERT's next-sentence prediction: each example becomes a pair [CLS] A [SEP] B [SEP] "
            "whose B follows A half of the time and comes from another example otherwise (needs BERT's pre-training "
            "heads and at least 2 examples per batch).")

    def requirements(self, config: Any = None) -> Requirements:
        if config is not None and getattr(config, "next_sentence_prediction", False):
            return NSP_REQUIRES
        return self.requires

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        check_shares(self.name, config.mask_token_prob, config.random_token_prob)

    def mask(self, ids: np.ndarray, info: VocabInfo, rng: np.random.Generator,
             config: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(corrupted ids, labels, kind codes) of BERT's masking of ``ids``."""
        selected, _ = select_positions(ids, info, rng, config.mask_rate, config.whole_word_masking,
                                       getattr(config, "max_predictions", 0))
        codes = draw_treatments(rng, len(selected), config.mask_token_prob, config.random_token_prob)
        corrupted, kinds = apply_treatments(ids, selected, codes, info, rng)
        labels = np.full(len(ids), IGNORE_INDEX, dtype=np.int64)
        labels[selected] = ids[selected]
        return corrupted, labels, kinds

    def corrupt(self, ids: np.ndarray, info: VocabInfo, rng: np.random.Generator, config: Any) -> Preview:
        corrupted, labels, kinds = self.mask(ids, info, rng, config)
        kind_list = kinds_from_codes(kinds)
        return Preview(original=ids.tolist(), input_ids=corrupted.tolist(), labels=labels.tolist(),
                       kinds=kind_list, original_kinds=list(kind_list))

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        info = vocab_info(tokenizer)
        if getattr(config, "next_sentence_prediction", False):
            return self.make_pair_batch(token_ids, tokenizer, info, rng, config, example_ids)
        static = config.masking == "static"
        previews = []
        for ids, example in zip(token_ids, example_ids_for(token_ids, example_ids)):
            draw = example_rng(rng, example) if static else rng
            previews.append(self.corrupt(np.asarray(ids, dtype=np.int64), info, draw, config))
        return collate(previews, info.pad_id)

    def make_pair_batch(self, token_ids: list[list[int]], tokenizer: Any, info: VocabInfo,
                        rng: np.random.Generator, config: Any, example_ids: Sequence[int] | None) -> Batch:
        """Next-sentence pairs (see ``nsp.build_pairs``), masked, with token_type_ids and next_sentence_label."""
        if len(token_ids) < 2:
            raise WorkbenchError(
                f"{self.name}: next-sentence prediction needs at least 2 examples per batch (a NotNext pair takes "
                f"its second segment from another example); this batch has {len(token_ids)}"
            )
        cls_id, sep_id = getattr(tokenizer, "cls_token_id", None), getattr(tokenizer, "sep_token_id", None)
        if cls_id is None or sep_id is None:
            raise WorkbenchError(f"{self.name}: next-sentence prediction needs [CLS] and [SEP] tokens")
        originals = [np.asarray(ids, dtype=np.int64) for ids in token_ids]
        pairs = build_pairs(originals, info, rng, int(cls_id), int(sep_id))
        static = config.masking == "static"
        previews = []
        for original, pair, example in zip(originals, pairs, example_ids_for(token_ids, example_ids)):
            draw = example_rng(rng, example) if static else rng
            corrupted, labels, kinds = self.mask(pair.ids, info, draw, config)
            untouched = kinds == CODE[PositionKind.UNCHANGED]
            kinds[untouched & (pair.origin < 0) & ~info.is_special(pair.ids)] = CODE[PositionKind.INSERTED]
            original_kinds = np.full(len(original), CODE[PositionKind.UNCHANGED], dtype=np.int64)
            content = ~info.is_special(original)
            original_kinds[content] = CODE[PositionKind.DELETED]  # until shown to be used below
            used = pair.origin >= 0
            original_kinds[pair.origin[used]] = kinds[used]
            previews.append(Preview(
                original=original.tolist(), input_ids=corrupted.tolist(), labels=labels.tolist(),
                kinds=kinds_from_codes(kinds), original_kinds=kinds_from_codes(original_kinds),
                origin=pair.origin.tolist(), segments=pair.segments.tolist()))
        batch = collate(previews, info.pad_id)
        batch.inputs["token_type_ids"] = torch.from_numpy(pad_rows([p.segments for p in previews], 0))
        batch.inputs["next_sentence_label"] = torch.tensor([pair.label for pair in pairs], dtype=torch.int64)
        return batch

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        batch = batch.to(model_device(model))
        inputs = dict(batch.inputs)
        nsp_labels = inputs.pop("next_sentence_label", None)
        out = masked_lm_forward(model, inputs, batch.labels)  # the head at the labelled positions only, if allowed
        if nsp_labels is None:
            loss = token_cross_entropy(out.logits, out.labels)
            return loss, {"loss": float(loss.detach()), "mlm": float(loss.detach())}
        nsp_logits = out.nsp_logits
        if nsp_logits is None:
            raise WorkbenchError(
                f"{self.name}: next-sentence prediction needs BERT's pre-training heads (a model like "
                "BertForPreTraining, with a next-sentence classifier); this model has none"
            )
        mlm = token_cross_entropy(out.logits, out.labels)
        nsp = F.cross_entropy(nsp_logits.float(), nsp_labels)
        loss = mlm + nsp
        accuracy = (nsp_logits.detach().argmax(-1) == nsp_labels).float().mean()
        return loss, {"loss": float(loss.detach()), "mlm": float(mlm.detach()), "mlm_loss": float(mlm.detach()),
                      "nsp_loss": float(nsp.detach()), "nsp_accuracy": float(accuracy)}

"""Knowledge distillation into a masked LM (Hinton et al. 2015; Sanh et al. 2019, "DistilBERT").

The student sees BERT-masked text (``mlm``'s masking and settings) and
learns from three terms, as DistilBERT's ``distiller.py`` computes them:

- ``alpha_kd`` x KL(softmax(t/T) || softmax(s/T)) x T^2 over the masked
  positions (mean over those positions; the T^2 keeps the gradients' scale
  as T changes, Hinton et al. section 2),
- ``alpha_mlm`` x the masked-LM cross-entropy against the true tokens,
- ``alpha_cos`` x (1 - cos(h_s, h_t)) of the last hidden states, averaged
  over the non-pad tokens (needs equal hidden sizes).

The teacher is an auxiliary model (``auxiliary_models``): the host loads it
frozen and passes it to ``loss`` as ``context.aux["teacher"]``; it is never among the
trainable ``heads``, and its forward pass runs without gradients. It must use
the student's tokenizer (``check_teacher``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from lm_workbench.engine.plugin_api import (
    setting,
    Batch, Family, LossContext, Requirements, WorkbenchError, masked_lm_forward, model_device, token_cross_entropy,
)
from lm_workbench.plugins.objectives.mlm import MaskedLM


def distillation_kl(student_logits: torch.Tensor, teacher_logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """KL(softmax(t/T) || softmax(s/T)) x T^2, averaged over the rows (DistilBERT's ``KLDivLoss(batchmean)``)."""
    t = float(temperature)
    log_p_student = F.log_softmax(student_logits.float() / t, dim=-1)
    p_teacher = F.softmax(teacher_logits.float() / t, dim=-1)
    return F.kl_div(log_p_student, p_teacher, reduction="batchmean") * t * t


def cosine_loss(student_hidden: torch.Tensor, teacher_hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Mean of 1 - cos(h_s, h_t) over the positions where ``attention_mask`` is 1."""
    keep = attention_mask.bool()
    cos = F.cosine_similarity(student_hidden[keep].float(), teacher_hidden[keep].float(), dim=-1)
    return (1.0 - cos).mean()


def _hidden_size(model: Any) -> int | None:
    size = getattr(getattr(model, "config", None), "hidden_size", None)
    return int(size) if isinstance(size, int) else None


class Distillation(MaskedLM):
    name = "distillation"
    api_version = "3.0"
    families = frozenset({Family.ENCODER})
    requires = Requirements(head="mlm", tokens=("mask_token",))
    description = "Train a masked LM to match a frozen teacher's predictions and hidden states (DistilBERT)."
    paper = ("Hinton et al. 2015, Distilling the Knowledge in a Neural Network; "
             "Sanh et al. 2019, DistilBERT, a distilled version of BERT")

    @dataclass
    class Config(MaskedLM.MaskingConfig):
        teacher: str = setting(
            "", "The teacher model (a model spec, as for loading a model): a masked LM with the student's tokenizer. "
            "It is loaded frozen and never trained.")
        temperature: float = setting(
            2.0, "Softmax temperature T of the distillation term (the term is scaled by T^2).", min=1e-6)
        alpha_kd: float = setting(
            5.0, "Weight of the distillation term: KL from the teacher's to the student's softened predictions at the "
            "masked positions.", min=0.0)
        alpha_mlm: float = setting(2.0, "Weight of the masked-LM cross-entropy against the true tokens.", min=0.0)
        alpha_cos: float = setting(
            1.0, "Weight of the cosine loss between the student's and the teacher's last hidden states (needs equal "
            "hidden sizes; 0 turns it off).", min=0.0)

    def requirements(self, config: Any = None) -> Requirements:
        return self.requires

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if not config.temperature > 0:
            raise WorkbenchError(f"{self.name}: temperature must be greater than 0, not {config.temperature}")

    def auxiliary_models(self, config: Any) -> dict[str, str]:
        if not str(config.teacher).strip():
            raise WorkbenchError(f"{self.name}: set teacher to the model to distil from (a model spec)")
        return {"teacher": str(config.teacher).strip()}

    @staticmethod
    def check_teacher(teacher_tokenizer: Any, student_tokenizer: Any) -> None:
        """Raise ``WorkbenchError`` unless both tokenizers have the same vocabulary (same tokens, same ids)."""
        teacher_vocab, student_vocab = teacher_tokenizer.get_vocab(), student_tokenizer.get_vocab()
        if teacher_vocab != student_vocab:
            only_t = len(set(teacher_vocab) - set(student_vocab))
            only_s = len(set(student_vocab) - set(teacher_vocab))
            raise WorkbenchError(
                f"distillation: the teacher's tokenizer differs from the student's ({len(teacher_vocab)} vs "
                f"{len(student_vocab)} tokens; {only_t} only in the teacher's, {only_s} only in the student's, "
                "or the same tokens with other ids); distil from a teacher with the student's tokenizer"
            )

    def check_aux(self, aux: dict[str, Any], model: Any, config: Any = None) -> None:
        config = self.default_config() if config is None else config
        teacher = (aux or {}).get("teacher")
        if teacher is None:
            raise WorkbenchError(f"{self.name}: the teacher model is not loaded")
        t_vocab = getattr(getattr(teacher, "config", None), "vocab_size", None)
        s_vocab = getattr(getattr(model, "config", None), "vocab_size", None)
        if t_vocab is not None and s_vocab is not None and t_vocab != s_vocab:
            raise WorkbenchError(
                f"{self.name}: the teacher predicts over {t_vocab} tokens and the student over {s_vocab}; "
                "they need the same vocabulary")
        t_size, s_size = _hidden_size(teacher), _hidden_size(model)
        if config.alpha_cos > 0 and t_size != s_size:
            raise WorkbenchError(
                f"{self.name}: the cosine loss compares hidden states, and the teacher's hidden size is {t_size} "
                f"while the student's is {s_size}; use equal sizes or set alpha_cos=0")

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        config = context.config
        temperature, alpha_kd = float(config.temperature), float(config.alpha_kd)
        alpha_mlm, alpha_cos = float(config.alpha_mlm), float(config.alpha_cos)
        teacher = context.aux.get("teacher")
        if teacher is None:
            raise WorkbenchError(f"{self.name}: the loss needs the teacher model (context.aux['teacher'])")
        batch = batch.to(model_device(model))
        inputs = {k: v for k, v in batch.inputs.items() if k != "next_sentence_label"}
        # Student and teacher run their vocabulary heads only at the masked positions when the loop allows it.
        student = masked_lm_forward(model, inputs, batch.labels)
        with torch.no_grad():
            t_device = model_device(teacher)
            t_out = masked_lm_forward(teacher, {k: v.to(t_device) for k, v in inputs.items()},
                                      batch.labels.to(t_device))
        s_scored = student.scored_logits()
        t_scored = t_out.scored_logits().to(s_scored.device)
        # KL over the masked rows (mean over them); with none, 0 keeping the graph (no host-side test)
        kd = (distillation_kl(s_scored, t_scored, temperature) if s_scored.shape[0]
              else s_scored.sum() * 0.0)
        mlm = token_cross_entropy(student.logits, student.labels)
        loss = alpha_kd * kd + alpha_mlm * mlm
        metrics = {"kd_loss": float(kd.detach()), "mlm_loss": float(mlm.detach())}
        if alpha_cos > 0:
            cos = cosine_loss(student.hidden, t_out.hidden.to(student.hidden.device), inputs["attention_mask"])
            loss = loss + alpha_cos * cos
            metrics["cos_loss"] = float(cos.detach())
        return loss, {"loss": float(loss.detach()), **metrics}

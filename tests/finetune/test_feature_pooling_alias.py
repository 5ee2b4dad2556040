"""The feature-based method's head pooling speaks the one vocabulary: ``cls`` (its old name ``first`` still read
from ``--method-config``, a saved run's config and a preset), ``mean`` and ``last``; each is checked against the
mixed vectors pooled by hand."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.objectives.config_fields import config_from_strings
from lm_workbench.plugins.finetune_methods.features import FeatureBased, FeaturesConfig


def test_first_is_read_as_cls_wherever_a_config_comes_from():
    method = FeatureBased()
    assert config_from_strings(method.default_config(), ["pooling=first"], "features").pooling == "cls"
    assert method.config_from_dict({"pooling": "first", "dropout": 0.0}).pooling == "cls"
    assert FeaturesConfig(pooling="first").pooling == "cls"
    with pytest.raises(Exception, match="pooling"):
        config_from_strings(method.default_config(), ["pooling=median"], "features")


@pytest.mark.parametrize("name", ["cls", "first", "mean", "last"])
def test_the_head_reads_the_named_pooling(tiny_models, name):
    from transformers import AutoModelForSequenceClassification

    from lm_workbench.engine.finetune.methods.feature_based import FeatureBasedModel

    torch.manual_seed(0)
    task_model = AutoModelForSequenceClassification.from_pretrained(tiny_models["bert"], num_labels=2)
    model = FeatureBasedModel(task_model, "seq-cls", pooling=name, dropout=0.0).eval()
    ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    with torch.no_grad():
        mixed = model._features({"input_ids": ids, "attention_mask": mask})  # [B, T, H]
        logits = model(input_ids=ids, attention_mask=mask).logits
    rows = []
    for b in range(2):
        real = mixed[b, : int(mask[b].sum())]
        rows.append({"cls": real[0], "first": real[0], "mean": real.mean(0), "last": real[-1]}[name])
    torch.testing.assert_close(logits, model.head(torch.stack(rows)), atol=1e-6, rtol=1e-6)

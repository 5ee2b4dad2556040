"""Fixtures of the Guide tests: two models of each family a page asks about, and one loader for them all."""

from __future__ import annotations

from pathlib import Path

import pytest


class FamilyModels:
    """family -> two different tiny models (folders); ``course``: the course-model folders the pages name."""

    def __init__(self, tiny_models, root: Path) -> None:
        self.tiny, self.root = tiny_models, root
        self._made: dict[str, str] = {}

    def _other_bert(self) -> str:
        folder = self.root / "bert-other"
        if not (folder / "config.json").is_file():
            import torch
            import transformers as tf

            model = tf.AutoModelForMaskedLM.from_pretrained(self.tiny["bert"])
            torch.manual_seed(7)
            for p in model.parameters():
                torch.nn.init.normal_(p, std=0.05)
            model.save_pretrained(folder)
            tf.AutoTokenizer.from_pretrained(self.tiny["bert"]).save_pretrained(folder)
        return str(folder)

    def _elmo(self, seed: int) -> str:
        from tests.support.elmo_reference import tiny_elmo

        folder = self.root / f"elmo-{seed}"
        if not folder.is_dir():
            tiny_elmo(folder, seed)
        return str(folder)

    def of(self, family: str) -> list[str]:
        if family == "encoder":
            return [str(self.tiny["bert"]), self._other_bert()]
        if family == "decoder":
            return [str(self.tiny["gpt2"]), str(self.tiny["llama"])]
        if family == "biLM":
            return [self._elmo(5), self._elmo(6)]
        raise ValueError(family)

    @property
    def course(self) -> dict[str, str]:
        return {"bert": str(self.tiny["bert"]), "gpt2": str(self.tiny["gpt2"]), "t5": str(self.tiny["t5"]),
                "bart": str(self.tiny["bart"]), "elmo": self._elmo(5)}


@pytest.fixture(scope="session")
def family_models(tiny_models, tmp_path_factory) -> FamilyModels:
    return FamilyModels(tiny_models, tmp_path_factory.mktemp("guide-models"))


@pytest.fixture(scope="session")
def model_cache():
    """Each model loaded once for every Guide test (as ``presets verify`` loads them)."""
    from lm_workbench.lectures.verify import ModelCache

    return ModelCache()

"""The masking & noising lab with real widgets, against independent calls of the objectives and the models."""

from __future__ import annotations

import csv
import dataclasses

import numpy as np
import pytest
import torch

from lm_workbench.engine.objectives.config_fields import config_fields
from lm_workbench.ui.widgets.export import save_widget
from lm_workbench.masking_lab.preview import sample_rates
from lm_workbench.extensions.registry import ObjectiveRegistry

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
TEXT = "The value of the object is a simple number in the table."


@pytest.fixture
def make_lab(open_window, qtbot):
    def make(spec: str, text: str = TEXT):
        window = open_window(spec, "masking_lab")
        lab = window.view("masking_lab")
        window.text_input.set_text(text)
        settle(qtbot, window, lambda: lab.result is not None)
        return window, lab

    return make


def settle(qtbot, window, cond) -> None:
    qtbot.waitUntil(lambda: cond() and not window.jobs.busy and not window.text_input.pending(), timeout=WAIT)


def independent(name: str, tokenizer, text: str, seed: int, **changes):
    """The objective's own make_batch, called directly: the first draw of a generator seeded with ``seed``."""
    obj = ObjectiveRegistry.discover().objective(name)
    config = dataclasses.replace(obj.default_config(), **changes)
    ids = tokenizer(text)["input_ids"]
    batch = obj.make_batch([ids], tokenizer, np.random.default_rng(seed), config, example_ids=[0])
    return batch.previews[0], config, ids


def labels_shown(row) -> list[int]:
    return [-100 if i is None else i for i in row.ids()]


def pick_mlm(qtbot, window, lab, rate: float, seed: int) -> None:
    lab.set_objective("mlm")
    lab.form.editors["mask_rate"].setValue(rate)
    lab.seed_spin.setValue(seed)
    settle(qtbot, window, lambda: lab.result["seed"] == seed and lab.shown_key[4] == "mlm"
           and f"mask_rate={rate}" in lab.shown_key[5])


def test_mlm_preview_equals_make_batch_and_resample(make_lab, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["bert"])
    window, lab = make_lab(folder)
    pick_mlm(qtbot, window, lab, 0.5, 7)
    tok = tf.AutoTokenizer.from_pretrained(folder)
    p, _, _ = independent("mlm", tok, TEXT, 7, mask_rate=0.5)
    grid = lab.grid
    assert grid.row_names()[:3] == ["original", "input", "labels"]
    assert grid.row("original").tokens() == tok.convert_ids_to_tokens(p.original)
    assert grid.row("input").tokens() == tok.convert_ids_to_tokens(p.input_ids)
    assert grid.row("input").ids() == p.input_ids
    assert grid.row("input").kinds() == [k.value for k in p.kinds]
    assert labels_shown(grid.row("labels")) == p.labels
    assert [k for k, lab_ in zip(grid.row("labels").kinds(), p.labels) if lab_ == -100] == \
        ["ignored"] * p.labels.count(-100)
    assert {"masked"} <= set(grid.row("input").kinds())

    # hover: token, id, kind and label in the tooltip
    i = next(i for i, k in enumerate(p.kinds) if k.value == "masked")
    tip = grid.tooltip_at(grid.cell_rect("input", i).center())
    assert tok.mask_token in tip and f"id {p.input_ids[i]}" in tip and "kind: masked" in tip
    assert tok.convert_ids_to_tokens(p.labels[i]) in tip

    before = grid.row("input").ids()
    lab.resample_button.click()
    assert lab.seed_spin.value() == 8
    settle(qtbot, window, lambda: lab.result["seed"] == 8)
    p8, _, _ = independent("mlm", tok, TEXT, 8, mask_rate=0.5)
    assert grid.row("input").ids() == p8.input_ids != before

    # the model (tiny BERT has an MLM head): top-1 at every scored position = argmax of transformers' logits
    preds = lab.result["predictions"]
    model = tf.AutoModelForMaskedLM.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([p8.input_ids])).logits[0]
    scored = [i for i, t in enumerate(p8.labels) if t != -100]
    assert preds["positions"] == scored
    assert preds["ids"] == [int(torch.argmax(logits[i])) for i in scored]
    assert [x for x in grid.row("model").ids() if x is not None] == preds["ids"]
    assert lab.model_panel.table.rowCount() == len(scored)


def test_form_is_generated_from_config_fields_and_validates(make_lab, qtbot, tiny_models):
    window, lab = make_lab(str(tiny_models["bert"]))
    registry = lab.registry
    names = [lab.objective_combo.itemData(i) for i in range(lab.objective_combo.count())]
    assert "mlm" in names and "spanbert" in names and "bart" not in names  # an encoder's objectives
    for name in names:
        lab.set_objective(name)
        fields = config_fields(type(registry.objective(name).default_config()))
        assert len(lab.form.editors) == len(fields)
        assert [lab.form.editors[f.name].toolTip() for f in fields] == [f.help for f in fields]
    lab.set_objective("mlm")
    settle(qtbot, window, lambda: lab.shown_key[4] == "mlm")
    lab.form.editors["mask_rate"].setValue(1.01)
    assert "mask_rate must be at most 1.0" in lab.form.error()
    assert lab.form.error_label.isVisible()
    lab.form.editors["mask_rate"].setValue(0.2)
    assert lab.form.error() == ""


def test_stats_panel_equals_the_shared_rate_function(make_lab, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["bert"])
    window, lab = make_lab(folder)
    pick_mlm(qtbot, window, lab, 0.5, 3)
    lab.stats.n_spin.setValue(300)
    lab.stats.draw_button.click()
    settle(qtbot, window, lambda: bool(lab.stats.rates))
    tok = tf.AutoTokenizer.from_pretrained(folder)
    _, config, ids = independent("mlm", tok, TEXT, 3, mask_rate=0.5)
    expected = sample_rates(ObjectiveRegistry.discover(), "mlm", ids, tok, config, 3, 300)
    assert lab.stats.rates == expected
    shown = lab.stats.shown_rates()
    assert list(shown)[:4] == ["selected", "mask", "random", "keep"]
    assert shown == {k: f"{expected[k]:.4f}" for k in shown}
    assert lab.stats.table.item(0, 2).text() == "0.5000"  # configured


def test_bart_shows_a_target_row_deletions_and_moves(make_lab, qtbot, tiny_models, tmp_path):
    import transformers as tf

    folder = str(tiny_models["bart"])
    text = "The cat sat on the mat. The dog ran to the park. Birds sang in the tall trees."
    window, lab = make_lab(folder, text)
    assert lab.objective_name() == "bart"
    lab.form.set_values({"token_deletion": 0.4, "document_rotation": True})
    lab.seed_spin.setValue(5)
    settle(qtbot, window, lambda: lab.result["seed"] == 5 and "token_deletion=0.4" in lab.shown_key[5])
    tok = tf.AutoTokenizer.from_pretrained(folder)
    p, _, _ = independent("bart", tok, text, 5, token_deletion=0.4, document_rotation=True)
    grid = lab.grid
    assert grid.row_names()[:3] == ["original", "input", "target"]
    assert grid.row("original").kinds() == [k.value for k in p.original_kinds]
    assert {"deleted", "moved"} <= set(grid.row("original").kinds())
    assert grid.row("input").ids() == p.input_ids
    assert labels_shown(grid.row("target")) == p.labels
    assert grid.row("model") is not None  # greedy reconstruction of the tiny BART
    assert len(lab.result["predictions"]["ids"]) > 0

    lab.export_csv(tmp_path / "lab.csv")
    with open(tmp_path / "lab.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["row", "position", "token", "id", "kind", "origin"]
    assert len(rows) - 1 == sum(len(r.cells) for band in grid.bands for r in band)
    assert save_widget(lab, tmp_path / "lab.png").stat().st_size > 0
    assert save_widget(lab, tmp_path / "lab.svg").read_text(encoding="utf-8").count("<svg") == 1


def test_t5_span_through_another_tokenizer(make_lab, qtbot, tiny_models):
    import transformers as tf

    window, lab = make_lab(str(tiny_models["bert"]))
    t5 = str(tiny_models["t5"])
    lab.tokenizer_combo.setCurrentIndex(1)
    lab.tokenizer_edit.setText(t5)
    lab.tokenizer_edit.editingFinished.emit()
    settle(qtbot, window, lambda: "not known" in lab.objective_note.text())
    # mlm stays chosen, and the T5 tokenizer has no mask token: the objective's one-line refusal shows
    settle(qtbot, window, lambda: lab.notice.level() == "warning")
    assert "mlm needs a mask token" in lab.notice.text()
    lab.set_objective("t5-span")
    lab.seed_spin.setValue(2)
    settle(qtbot, window, lambda: lab.shown_key[4] == "t5-span" and lab.result["seed"] == 2)
    tok = tf.AutoTokenizer.from_pretrained(t5)
    p, _, _ = independent("t5-span", tok, TEXT, 2)
    grid = lab.grid
    assert grid.row("input").ids() == p.input_ids
    assert labels_shown(grid.row("target")) == p.labels
    assert "sentinel" in grid.row("input").kinds() and "sentinel" in grid.row("target").kinds()
    assert "need the loaded model's own tokenizer" in lab.model_panel.note.text()


def test_minilm_says_it_has_no_mlm_head(make_lab, qtbot):
    window, lab = make_lab("minilm", "The bank raised interest rates because inflation rose sharply last year.")
    assert lab.objective_name() == "mlm"
    assert "MiniLM has no MLM head" in lab.model_panel.note.text()
    assert lab.grid.row("model") is None and lab.result["predictions"] is None

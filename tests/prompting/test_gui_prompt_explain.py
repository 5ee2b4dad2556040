"""Explain in the Prompting tab's Score page, with the real widgets: a label's score attributed to the filled
template's tokens equals gradient × input taken here by plain autograd on the word embeddings (the template
filled by hand, the answer token looked up in the vocabulary, ``inputs_embeds`` through the model); the
attention band is the eager forward pass's last layer at the mask."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
TEMPLATE = "[x] Overall, it was [z] here."
VERBALIZER = "yes=true;no=false"  # one vocabulary token each in the tiny BERT's WordPiece
X = "The list is a new object."


def _retype(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def click_row(qtbot, table, row: int) -> None:
    """A plain click on the row (selectRow would read whatever keyboard modifiers Qt last saw)."""
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualItemRect(table.item(row, 0)).center())
    assert [i.row() for i in table.selectionModel().selectedRows()] == [row]


def test_explain_a_labels_score_against_plain_autograd(open_window, qtbot, tiny_models, fresh_home):
    import transformers as tf

    folder = str(tiny_models["bert"])
    builtin = builtin_views()
    window = open_window(folder, "prompting", registry=ViewRegistry([builtin.get("tokens"),
                                                                     builtin.get("prompting")]), about=False)
    view = window.view("prompting")
    editor, panel = view.editor, view.score_page.explain
    _retype(qtbot, editor.template_edit, TEMPLATE)
    _retype(qtbot, editor.verbalizer_edit, VERBALIZER)
    _retype(qtbot, editor.x_edit, X)
    panel.explain_button.click()  # nothing scored yet: said so, nothing runs
    assert "Score the input first" in panel.notice.text() and not view.ctx.jobs.busy()
    view.score_button.click()
    qtbot.waitUntil(lambda: view.state.scored is not None and not view.ctx.jobs.busy(), timeout=WAIT)
    table = view.score_page.labels_table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == ["yes", "no"]
    click_row(qtbot, table, 1)  # the label "no", whichever label the model predicts
    panel.set_method("grad-input")
    panel.explain_button.click()
    qtbot.waitUntil(lambda: panel.strip.isVisible() and panel.explain_button.isEnabled(), timeout=WAIT)

    tokenizer = tf.AutoTokenizer.from_pretrained(folder)
    model = tf.AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    filled = f"{X} Overall, it was {tokenizer.mask_token} here."  # the template filled by hand
    ids = torch.tensor([tokenizer(filled)["input_ids"]])
    mask = int((ids[0] == tokenizer.mask_token_id).nonzero()[0, 0])
    answer = tokenizer.convert_tokens_to_ids("false")
    emb = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    out = model(inputs_embeds=emb, output_attentions=True)
    out.logits[0, mask, answer].backward()
    expected = (emb * emb.grad).sum(-1)[0].detach().double().numpy()

    strip = view.score_page.explain.strip
    assert strip.tokens() == tokenizer.convert_ids_to_tokens(ids[0].tolist())
    np.testing.assert_allclose(strip.scores(), expected, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(strip.attention(), out.attentions[-1][0].mean(0)[mask].detach().double().numpy(),
                               atol=1e-6)
    assert panel.summary.text().startswith("Label <b>no</b>: ") and f"at token {mask}" in panel.summary.text()
    assert strip._marked == mask

    view.score_button.click()  # new scores clear the explanation
    qtbot.waitUntil(lambda: not view.ctx.jobs.busy(), timeout=WAIT)
    assert not strip.isVisible() and panel.summary.text() == ""
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        click_row(qtbot, table, 1)
        panel.explain_button.click()
        qtbot.waitUntil(lambda: panel.strip.isVisible() and panel.explain_button.isEnabled(), timeout=WAIT)
        window.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "prompting-explain.png"))

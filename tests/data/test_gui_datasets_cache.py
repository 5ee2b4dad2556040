""""From the datasets cache…" in the Probing view: the real dialog lists the cache, OK hands the split to the
view, and the STS sweep on it reports the rows it read and scored."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views
from lm_workbench.ui.widgets.dataset_picker import CachedDatasetDialog


def _registry() -> ViewRegistry:
    builtin = builtin_views()
    return ViewRegistry([builtin.get("tokens"), builtin.get("probing")])


def _answer_the_dialog(qtbot, choose: str, seen: list) -> None:
    """When the modal dialog is up: note what it lists, select the row of ``choose`` and press OK."""
    def act() -> None:
        dialog = next((w for w in QApplication.topLevelWidgets()
                       if isinstance(w, CachedDatasetDialog) and w.isVisible()), None)
        if dialog is None:
            QTimer.singleShot(50, act)
            return
        rows = [dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())]
        seen.extend([item.text(c) for c in range(4)] for item in rows)
        if os.environ.get("DATASETS_SCREENSHOT"):
            dialog.grab().save(os.environ["DATASETS_SCREENSHOT"])
        dialog.tree.setCurrentItem(next(item for item in rows if item.text(1) == choose))
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    QTimer.singleShot(0, act)


def test_an_sts_split_from_the_cache_runs_in_the_probing_view(open_window, qtbot, tiny_models, fresh_home,
                                                                 in_cache):
    window = open_window(str(tiny_models["bert"]), "probing", registry=_registry())
    view = window.view("probing")
    seen: list = []
    _answer_the_dialog(qtbot, "stsb", seen)
    view.sts_combo.setCurrentIndex(view.sts_combo.findText("From the datasets cache…"))
    view.sts_combo.activated.emit(view.sts_combo.currentIndex())
    assert seen == [["nyu-mll/glue", "sst2", "validation", "4"], ["nyu-mll/glue", "stsb", "validation", "4"]]
    assert view.state.sts_data == "nyu-mll/glue/stsb:validation"
    assert view.sts_combo.currentText() == "nyu-mll/glue/stsb:validation"

    view.probe_check.setChecked(False)
    view.sts_check.setChecked(True)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.sts_run_id is not None, timeout=60000)
    assert "STS file: read 4 rows, skipped 0" in view.summary.text()  # GLUE STS-B's score column is "label"

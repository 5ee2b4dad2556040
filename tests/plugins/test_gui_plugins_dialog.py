"""The Plugins dialog lists every plugin with its kind and status; folder plugins run only once enabled."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.support.folder_plugins import make_folder_plugin
from lm_workbench.paths import plugins_dir

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def window(open_window, fresh_home):
    return open_window()


def test_plugins_dialog_lists_errors_and_enables_a_folder_plugin(window, qtbot):
    root = plugins_dir()
    echo = make_folder_plugin(root, "echo")
    make_folder_plugin(root, "broken", name="broken", extra="raise RuntimeError('boom at import')")
    window.settings.enabled_plugins = ["broken"]
    window.actions_.plugins.trigger()
    dialog = window.plugins_dialog
    qtbot.waitUntil(lambda: len(dialog.records) >= 8, timeout=30000)
    table = dialog.table
    status = {r["name"]: r["status"] for r in dialog.records}
    assert {status[n] for n in ("mlm", "clm", "bart", "spanbert", "t5-span", "distillation")} == {"ok"}
    assert status["echo"] == "disabled" and not (echo / "imported.marker").exists()
    broken = dialog.row_of("broken")
    assert table.item(broken, 7).text() == "error" and "boom at import" in table.item(broken, 8).text()
    assert table.item(dialog.row_of("mlm"), 2).text() == "objective"
    assert "with an error" in dialog.status.text()

    row = dialog.row_of("echo")
    table.item(row, 0).setCheckState(Qt.CheckState.Checked)  # as a click on the check box does
    qtbot.waitUntil(lambda: {r["name"]: r["status"] for r in dialog.records}["echo"] == "ok", timeout=30000)
    assert (echo / "imported.marker").exists()
    assert "echo" in window.settings.enabled_plugins
    assert table.item(dialog.row_of("mlm"), 0).text() == "always"
    dialog.close()

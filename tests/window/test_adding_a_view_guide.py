"""The guide's example view (docs/adding-a-view.md), laid out as the guide says, shows, computes and takes presets.

The three files are the guide's own code blocks, written into a ``ui/word_pieces/`` package of a temporary
folder, so the guide cannot drift from the view API. The registry line is the one the guide gives; the
counts are checked against the tokenizer called here, and misspelt or incomplete optional hooks are refused
when the entry is registered.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

import lm_workbench.ui as ui
from lm_workbench.ui.view_kit.view_abilities import PresetView
from lm_workbench.ui.view_kit.view_base import ModelView
from lm_workbench.ui.view_kit.view_entry import ViewEntry
from lm_workbench.ui.window.view_registry import builtin_views

pytestmark = pytest.mark.timeout(90)
GUIDE = Path(__file__).parents[2] / "docs" / "adding-a-view.md"
TEXT = "Unbelievably, the tokenizer splits rarer words."


def guide_files() -> dict[str, str]:
    """path -> code, for each python block of the guide that starts with a ``# ui/...`` path line."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    return {b.splitlines()[0][2:].strip(): b for b in blocks if b.startswith("# ui/")}


@pytest.fixture
def word_pieces(tmp_path, monkeypatch):
    """The guide's package importable as ``lm_workbench.ui.word_pieces`` (its folder added to the ``ui`` package's path)."""
    files = guide_files()
    assert set(files) == {"ui/word_pieces/about.py", "ui/word_pieces/word_pieces_view.py",
                          "ui/word_pieces/entry.py"}
    for path, code in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(code, encoding="utf-8")
    (tmp_path / "ui" / "word_pieces" / "__init__.py").write_text("")
    monkeypatch.setattr(ui, "__path__", [*ui.__path__, str(tmp_path / "ui")])
    yield
    for name in [m for m in sys.modules if m.startswith("lm_workbench.ui.word_pieces")]:
        del sys.modules[name]


def test_the_guides_view_is_a_tab_that_computes_with_progress_and_takes_presets(word_pieces, open_window, qtbot,
                                                                                  tiny_models):
    from lm_workbench.ui.word_pieces.entry import ENTRY as word_pieces  # the guide's registry line

    registry = builtin_views()
    registry.register(word_pieces)
    window = open_window(str(tiny_models["bert"]), registry=registry)
    assert window.views.tabText(window.views.count() - 1) == "Word pieces"

    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.view_host.current_entry().id == "word_pieces"
    assert window.about_panel.title() == "Word pieces"
    view = window.view("word_pieces")
    assert isinstance(view, ModelView) and isinstance(view, PresetView) and view.ctx.entry is word_pieces

    reports = []
    window.jobs.progress.connect(lambda *args: reports.append(args))
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: len(view.counts) == len(TEXT.split()), timeout=20000)
    tokenizer = window.loaded.tokenizer
    assert view.counts == [(w, len(tokenizer.tokenize(w))) for w in TEXT.split()]
    assert reports, "the job's progress reached the window"
    assert max(n for _, n in view.counts) >= 2  # the text has a word of several pieces to star

    # A preset step (and a workspace) drive it through the host, keys checked against the class's declaration
    window.view_host.apply_preset_step("word_pieces", {"highlight": 1}, {})
    assert window.view_host.preset_state("word_pieces") == ({"highlight": 1}, {})
    assert view.label.text().count("*") == len(TEXT.split())
    with pytest.raises(ValueError, match="cannot apply colour"):
        window.view_host.apply_preset_step("word_pieces", {"colour": "red"}, {})
    assert word_pieces.preset_settings == frozenset({"highlight"})


class _Base(ModelView):
    def computation(self, inputs):
        return None

    def show_hint(self, text):
        pass


class Misspelt(_Base):
    preset_settings = frozenset({"k"})

    def apply_preset_steps(self, settings, inputs):  # one letter too many: the host would never call it
        pass

    def preset_state(self):
        return {}, {}


class ShutdownTypo(_Base):
    def shutdwon(self):
        pass


class HalfPresets(_Base):
    preset_settings = frozenset({"k"})

    def apply_preset_step(self, settings, inputs):
        pass


class PresetsWithoutKeys(_Base):
    def apply_preset_step(self, settings, inputs):
        pass

    def preset_state(self):
        return {}, {}


class BadKeys(_Base):
    preset_settings = ["k"]

    def apply_preset_step(self, settings, inputs):
        pass

    def preset_state(self):
        return {}, {}


@pytest.mark.parametrize("cls, message", [
    (Misspelt, "apply_preset_steps looks like the hook 'apply_preset_step' misspelt"),
    (ShutdownTypo, "shutdwon looks like the hook 'shutdown' misspelt"),
    (HalfPresets, "has preset_settings, apply_preset_step but not preset_state"),
    (PresetsWithoutKeys, "has apply_preset_step, preset_state but not preset_settings"),
    (BadKeys, "preset_settings must be a frozenset"),
])
def test_a_misspelt_or_incomplete_hook_is_refused_at_registration(cls, message):
    registry = builtin_views()
    with pytest.raises(ValueError, match=re.escape(message)):
        registry.register(ViewEntry("broken", "Broken", "", cls))
    assert "broken" not in registry.ids()


def test_the_built_in_views_declare_their_abilities_on_their_classes():
    registry = builtin_views()
    keys = {e.id: e.preset_settings for e in registry if e.preset_settings}
    assert set(keys) == {"attention", "masking_lab", "embeddings", "probing", "prompting", "finetune", "patching",
                         "predictions", "retrieval", "heads", "runs", "features", "lens"}
    for entry in registry:
        assert entry.preset_settings == getattr(entry.view_class(), "preset_settings", frozenset())
    closable = {e.id for e in registry if "shutdown" in vars(e.view_class())}
    assert closable == {"finetune", "runs", "pretrain", "patching", "heads", "guide"}

"""The Lectures menu reads availability when it opens: course models built while the window is open make their
presets available (issue 36: three presets stayed greyed out, "not pre-trained on this machine")."""

from __future__ import annotations

import shutil

import pytest

from tests.support.lecture_play import install_course_models

pytestmark = pytest.mark.timeout(60)
TITLE = "Where does the model keep a fact"  # 09-where-is-a-fact: the course GPT-2


def _action(menu):
    return next(a for a in menu.actions() if a.text().startswith(TITLE))


def test_presets_become_available_when_course_models_appear(open_window, tiny_models, monkeypatch, tmp_path):
    home = install_course_models(tiny_models, monkeypatch, tmp_path, families=("bert",))
    window = open_window()
    menu = window.lectures.menu
    menu.aboutToShow.emit()
    assert not _action(menu).isEnabled() and "not pre-trained on this machine" in _action(menu).toolTip()
    shutil.copytree(tiny_models["gpt2"], home / "data" / "course-models" / "gpt2" / "model")  # built meanwhile
    menu.aboutToShow.emit()  # the menu opens
    assert _action(menu).isEnabled(), _action(menu).toolTip()

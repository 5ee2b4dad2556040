"""Fixtures of the lecture and presentation tests."""

from __future__ import annotations

import pytest

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT


@pytest.fixture
def restore_style(qapp):
    """The application's palette, font, style sheet and theme tokens as they were before the test."""
    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    yield
    theme.set_tokens(DEFAULT)
    qapp.setPalette(palette)
    qapp.setFont(font)
    qapp.setStyleSheet(sheet)
    qapp.setProperty("systemFontPt", None)

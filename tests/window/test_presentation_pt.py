"""The presentation font follows the screen's height (Qt-free): 20 pt at 1080 px, proportional, within bounds;
each size's token set has its pixel sizes scaled with the font and keeps the thick lines and colours."""

from __future__ import annotations

import pytest

from lm_workbench.ui.theme_tokens import (
    DEFAULT, MAX_PRESENTATION_PT, MIN_PRESENTATION_PT, PRESENTATION, is_presentation, presentation_pt,
    presentation_tokens,
)


@pytest.mark.parametrize("height, pt", [(1080, 20.0), (720, 13.5), (768, 14.0), (1440, 26.5), (2160, 40.0),
                                        (1200, 22.0), (480, MIN_PRESENTATION_PT), (4320, MAX_PRESENTATION_PT)])
def test_the_point_size_is_proportional_to_the_screen_height_within_bounds(height, pt):
    assert presentation_pt(height) == pt


def test_an_unknown_screen_gets_the_lecture_hall_size():
    assert presentation_pt(None) == presentation_pt(0) == 20.0


def test_each_size_has_one_token_set_scaled_with_its_font():
    assert presentation_tokens(20.0) is PRESENTATION and presentation_tokens(20) is PRESENTATION
    small = presentation_tokens(14.0)
    assert small is presentation_tokens(14.0) and is_presentation(small) and not is_presentation(DEFAULT)
    assert small.fonts.base_pt == 14.0 and small.colours == PRESENTATION.colours
    assert small.metrics.hairline == PRESENTATION.metrics.hairline  # lines stay thick
    assert small.metrics.plot_axis_w == round(DEFAULT.metrics.plot_axis_w * 1.8 * 14 / 20)
    assert small.metrics.plot_axis_w < PRESENTATION.metrics.plot_axis_w
    assert small.metrics.window_size == DEFAULT.metrics.window_size

"""The presentation token set, checked against WCAG's thresholds with an independent WCAG 2 formula.

Contrast ≥ 7:1 (WCAG AAA) for every ink token on every background token it
can meet and for every chip's ink on its fill; a 20 pt base font with no
smaller text; lines of at least 3 px; the Okabe–Ito palette for categories
and viridis (luminance rising from dark purple to yellow) for continuous maps.
"""

from __future__ import annotations

import dataclasses

import pytest

from lm_workbench.ui.theme_tokens import DEFAULT, PRESENTATION, Chip

# Okabe & Ito (2008), written out here rather than imported from the code under test.
OKABE_ITO = {"#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"}


def _luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance: linearise each sRGB channel, then 0.2126 R + 0.7152 G + 0.0722 B."""
    h = hex_colour.lstrip("#")
    channels = [int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _ratio(a: str, b: str) -> float:
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _over_white(rgba: tuple[int, int, int, int]) -> str:
    r, g, b, a = rgba
    return "#" + "".join(f"{round(v * a / 255 + 255 * (1 - a / 255)):02x}" for v in (r, g, b))


C = PRESENTATION.colours
INKS = {name: getattr(C, name) for name in (
    "ink", "tooltip_ink", "muted_ink", "hint_ink", "token_id_ink", "label_ink", "section_title_ink", "summary_ink",
    "about_ink", "plot_legend_ink", "run_running", "run_queued", "run_finished", "run_failed", "run_cancelled",
    "run_interrupted", "plugin_ok", "plugin_error", "plugin_disabled", "plugin_unknown")}
BACKGROUNDS = {name: getattr(C, name) for name in (
    "window_bg", "base_bg", "alternate_bg", "tooltip_bg", "dock_title_bg", "code_bg", "config_diff_bg",
    "neighbour_tie_bg", "word_highlight_bg", "text_highlight_bg", "prob_bar_track")}
BACKGROUNDS["plot_legend_bg"] = _over_white(C.plot_legend_bg)


def _chips(colours) -> dict[str, Chip]:
    chips = {f.name: getattr(colours, f.name) for f in dataclasses.fields(colours)
             if isinstance(getattr(colours, f.name), Chip)}
    kinds = colours.mask_kinds
    chips.update({f"mask_kinds.{f.name}": getattr(kinds, f.name) for f in dataclasses.fields(kinds)})
    return chips


def test_the_formula_itself():
    assert _ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert _ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the well-known AA borderline grey


@pytest.mark.parametrize("ink", sorted(INKS))
def test_every_ink_reaches_7_to_1_on_every_background(ink):
    low = {bg: round(_ratio(INKS[ink], colour), 2) for bg, colour in BACKGROUNDS.items()
           if _ratio(INKS[ink], colour) < 7.0}
    assert not low, f"{ink} ({INKS[ink]}) is below 7:1 on {low}"


def test_every_chip_ink_reaches_7_to_1_on_its_fill_and_selected_text_on_the_highlight():
    low = {name: round(_ratio(chip.ink, chip.fill), 2) for name, chip in _chips(C).items()
           if _ratio(chip.ink, chip.fill) < 7.0}
    assert not low
    assert _ratio(C.ink_on_dark, C.highlight) >= 7.0
    # The default set does not pass (so the check can fail): its hint grey is about 3.7:1 on white
    assert _ratio(DEFAULT.colours.hint_ink, DEFAULT.colours.base_bg) < 7.0


def test_fonts_are_20_pt_or_more_everywhere():
    f = PRESENTATION.fonts
    assert f.base_pt >= 20.0
    deltas = [getattr(f, field.name) for field in dataclasses.fields(f) if field.name.endswith("_delta")]
    assert len(deltas) >= 7 and min(f.pt(d) for d in deltas) >= 20.0
    assert f.base_pt * 96 / 72 >= 26  # pixels at a 1080p screen's usual 96 dpi


def test_lines_are_3_px_or_more():
    m = PRESENTATION.metrics
    lines = {f.name: getattr(m, f.name) for f in dataclasses.fields(m) if f.name.endswith("_width")}
    lines.update(hairline=m.hairline, head_button_border=m.head_button_border)
    assert len(lines) >= 12
    assert all(v >= 3 for v in lines.values()), {k: v for k, v in lines.items() if v < 3}


def test_categories_use_okabe_ito_and_continuous_maps_viridis():
    for palette in (C.head_colors, C.run_curves, C.group_colors):
        assert {c.lower() for c in palette} == OKABE_ITO and len(palette) == len(OKABE_ITO)
    stops = [s.lower() for s in C.heatmap_stops]
    assert stops[0] == "#440154" and stops[-1] == "#fde725" and stops[4] == "#21918c"  # viridis' ends and middle
    lum = [_luminance(s) for s in stops]
    assert all(b > a for a, b in zip(lum, lum[1:]))  # viridis: luminance rises monotonically

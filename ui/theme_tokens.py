"""The named values every widget paints with: colours, font sizes, line widths and sizes.

A ``Tokens`` set holds three frozen groups: ``Colours`` (hex strings, plus
``Chip`` triples of fill, border and ink), ``Fonts`` (point sizes, most as
offsets from the application font) and ``Metrics`` (pixels: line widths,
cell and row sizes, the fixed widths of controls). ``DEFAULT`` reproduces
the workbench's own look. Another set is one call away::

    big = DEFAULT.replace(base_pt=16.0, plot_line_width=3.0, head_line_width=2.0)

``replace`` takes any token by its name, whichever group holds it (names
are unique across the groups). ``lm_workbench.ui.theme.set_tokens`` makes a set current.

``PRESENTATION`` is the set for a projector (``lm_workbench.ui.window.presentation`` switches to
it, F5): a 20 pt base font with no smaller text, black on white (every
text/background pair of its tokens ≥ 7:1 by WCAG 2's contrast ratio), lines
of at least 3 px, the Okabe–Ito colour-blind-safe palette for categories and
viridis for continuous values, and every other size scaled to the font.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Chip:
    """A filled, outlined shape with text on it: (fill, border, ink)."""

    fill: str
    border: str
    ink: str

    def __iter__(self):
        return iter((self.fill, self.border, self.ink))


@dataclass(frozen=True)
class MaskKinds:
    """The masking lab's cells, by what happened at a position (``PositionKind``) and how a label scored."""

    unchanged: Chip = Chip("#ffffff", "#ccd2da", "#1f2329")
    masked: Chip = Chip("#ffd98a", "#d99a00", "#4d3500")
    random: Chip = Chip("#f7b7c8", "#cc4f73", "#5c0f26")
    kept: Chip = Chip("#bfe6c8", "#4f9e63", "#123d1d")
    deleted: Chip = Chip("#f3c1bc", "#c0392b", "#7a1a10")
    inserted: Chip = Chip("#c7dbfb", "#3a78d6", "#0f2f63")
    moved: Chip = Chip("#dccbf3", "#7d4cc2", "#35185c")
    sentinel: Chip = Chip("#b8e7ea", "#1e9aa3", "#0a3d41")
    ignored: Chip = Chip("#eef0f3", "#dde1e6", "#a3aab4")  # label -100: not scored
    hit: Chip = Chip("#d7f0dc", "#4f9e63", "#123d1d")
    miss: Chip = Chip("#fde2de", "#d26a5e", "#7a1a10")

    def get(self, kind: str) -> Chip:
        return getattr(self, kind, self.unchanged)


@dataclass(frozen=True)
class Colours:
    # The application palette and style sheet.
    window_bg: str = "#f6f7f9"
    base_bg: str = "#ffffff"  # text fields, tables, painted views
    alternate_bg: str = "#f2f4f7"
    highlight: str = "#2f6fd0"
    tooltip_bg: str = "#ffffff"
    tooltip_ink: str = "#1f2329"
    splitter: str = "#d5d9de"  # dock separators, tab pane outline, grid frames
    dock_title_bg: str = "#eef0f3"
    group_border: str = "#dcdfe4"
    section_title_ink: str = "#3b4350"
    summary_ink: str = "#4a5260"
    about_ink: str = "#2a2f36"
    code_bg: str = "#f1f3f6"  # code and field names in the About panel
    # Text on painted views.
    ink: str = "#1f2329"
    ink_on_dark: str = "#ffffff"
    muted_ink: str = "#5a6270"  # secondary labels (model facts, scatter axis text)
    hint_ink: str = "#7d8794"  # "type a sentence above" hints
    token_id_ink: str = "#7d8794"  # token ids, axis numbers, legends
    label_ink: str = "#3b4350"  # heatmap titles and row labels, plot titles
    hover: str = "#2f6fd0"  # the outline of the hovered or selected item
    frame: str = "#c3c8cf"  # outlines of heatmaps and colour bars
    rule: str = "#e3e6ea"  # rules between bands of the masking lab
    # Token chips by segment.
    segment_a: Chip = Chip("#e8f0fd", "#8fb2e6", "#17335c")
    segment_b: Chip = Chip("#fdf0e0", "#e0a866", "#5a3610")
    special_token: Chip = Chip("#f0f1f3", "#c3c8cf", "#6b727c")
    subword_separator: str = "#b9cbe6"  # between the subwords of one text word
    # Messages, notices and banners by level.
    error: Chip = Chip("#fdecea", "#efb4ae", "#8a1c14")
    info: Chip = Chip("#e9f2fd", "#b5d0f3", "#1b4b8a")
    warning: Chip = Chip("#fff6db", "#ecd08a", "#6b4e00")
    # Attention: a colour per head (cycled) and the weight colormap (low to high).
    head_colors: tuple[str, ...] = (
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a",
    )
    heatmap_stops: tuple[str, ...] = (
        "#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b",
    )
    # Probability bars of the candidate tables.
    prob_bar: str = "#6baed6"
    prob_bar_track: str = "#eef2f7"
    # The masking lab.
    mask_kinds: MaskKinds = field(default_factory=MaskKinds)
    # Training curves.
    train_loss_curve: str = "#2f6fd0"
    valid_loss_curve: str = "#d9731a"
    lr_curve: str = "#5a8f29"
    speed_curve: str = "#8a4fbf"
    # Runs: overlaid curves, status text, changed settings.
    run_curves: tuple[str, ...] = (
        "#2f6fd0", "#d9731a", "#2f8f4f", "#c23b3b", "#8a4fbf", "#8c6d3f", "#d15fa8", "#6b727c", "#1aa3b5", "#a3a32a",
    )
    run_running: str = "#1b4b8a"
    run_queued: str = "#6b727c"
    run_finished: str = "#2f6b1f"
    run_failed: str = "#8a1c14"
    run_cancelled: str = "#6b4e00"
    run_interrupted: str = "#a3470d"
    config_diff_bg: str = "#fff1c9"
    # Plugins dialog: a plugin's status.
    plugin_ok: str = "#2e7d32"
    plugin_error: str = "#c62828"
    plugin_disabled: str = "#757575"
    plugin_unknown: str = "#000000"
    # Embeddings: groups on the map (cycled), the rest, marks and layer plots.
    group_colors: tuple[str, ...] = (
        "#1f6fb4", "#e8741c", "#2a9d3f", "#d0343a", "#8a5cc2", "#8c564b", "#d66fb8", "#17a3b8",
        "#b5a300", "#4d4d4d", "#7fb2e5", "#f4b06b", "#86cf7f", "#f08c8e", "#bba2dd", "#c79b8f",
        "#f2a6d6", "#7fd3df", "#dbd26a", "#2f3d8f", "#7a3d0a", "#0f5c2a", "#6d1a5c", "#3f8f86",
    )
    other_group: str = "#b8bcc4"
    map_axis: str = "#9aa1ab"
    plot_axis_ink: str = "#969696"  # axis numbers and titles of the plots (pyqtgraph's own grey)
    map_selected_outline: str = "#1f2329"
    map_current_outline: str = "#e8741c"
    map_hover_outline: str = "#2f6fd0"
    selection_outline: str = "#2f6fd0"  # the box or lasso being drawn
    selection_fill_alpha: int = 30  # 0-255, over selection_outline
    accuracy_curve: str = "#1f6fb4"
    silhouette_curve: str = "#e8741c"
    anisotropy_curve: str = "#8a5cc2"
    plot_legend_ink: str = "#2b313a"
    plot_legend_bg: tuple[int, int, int, int] = (255, 255, 255, 215)
    neighbour_tie_bg: str = "#fff3cf"
    word_highlight_bg: str = "#ffe08a"  # the word in an occurrence's context
    text_highlight_bg: str = "#fff3b0"  # the characters a token covers, in its tooltip
    feature_activation: str = "#ff8c00"  # Features: a token shaded by a feature's activation; the histogram's bars
    # Fine-tune: the attachment diagram (boxes of a transformer block; the method's sites stand out).
    diagram_box: Chip = Chip("#f4f6f9", "#c3c8cf", "#3b4350")
    diagram_site: Chip = Chip("#ffe2b3", "#d9731a", "#4d2a00")  # where the method adds modules
    diagram_unfrozen: Chip = Chip("#d7f0dc", "#4f9e63", "#123d1d")  # existing weights it trains
    diagram_flow: str = "#7d8794"  # the main path's arrows
    diagram_residual: str = "#8a4fbf"  # the residual paths
    shift_cka_curve: str = "#2f6fd0"
    shift_cosine_curve: str = "#d9731a"
    prediction_error_bg: str = "#fde2de"  # a wrong validation prediction's row
    # Signed scores (attributions, patching effects): negative, zero, positive (ColorBrewer RdBu, reversed).
    diverging_stops: tuple[str, ...] = (
        "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b",
    )

    def message(self, level: str) -> Chip:
        """The chip of a message level ("error", "warning", anything else: info)."""
        return {"error": self.error, "warning": self.warning}.get(level, self.info)

    def run_status(self, status: str) -> str:
        return getattr(self, f"run_{status}", self.ink)

    def plugin_status(self, status: str) -> str:
        return {"ok": self.plugin_ok, "error": self.plugin_error, "disabled": self.plugin_disabled}.get(
            status, self.plugin_unknown)


@dataclass(frozen=True)
class Fonts:
    """Point sizes. ``base_pt`` is the smallest application font (a larger system font is kept); the
    ``*_delta`` sizes are offsets from the application font, so they follow it."""

    base_pt: float = 10.0
    token_delta: float = 1.0  # token chip text, the token tooltip's heading
    token_id_delta: float = -2.0  # the id under a token chip
    small_delta: float = -1.5  # heatmap and thumbnail-grid labels
    lens_cell_delta: float = -1.0  # logit-lens cells
    live_plot_title_delta: float = -1.0  # titles of the training plots
    infill_delta: float = 2.0  # the infilled sentence
    run_legend_delta: float = -2.0  # the names of overlaid runs
    lecture_caption_delta: float = 3.0  # a lecture step's caption

    def pt(self, delta: float = 0.0) -> float:
        """``base_pt`` plus an offset (for style sheets and plot titles, which take a fixed size)."""
        return self.base_pt + delta


@dataclass(frozen=True)
class Metrics:
    """Pixels."""

    # Line widths.
    chip_border_width: float = 1.0  # token chips, masking cells, grid and heatmap frames
    hover_width: float = 2.0  # the hovered or selected item's outline
    head_line_width: float = 1.0  # a head-view line of weight 0 ...
    head_line_extra_width: float = 3.0  # ... plus this much at weight 1
    plot_line_width: float = 2.0  # curves of loss, accuracy, anisotropy, overlaid runs
    plot_thin_line_width: float = 1.6  # secondary training curves (learning rate, speed)
    raw_curve_width: float = 1.0  # a run's unsmoothed curve under its smoothed one
    raw_curve_alpha: int = 55  # 0-255
    cell_text_contrast: float = 0.0  # the least contrast of text on a coloured cell, a plate behind it if not
    # (0: the better of the two inks, never a plate)
    map_selected_width: float = 1.2
    map_current_width: float = 2.5
    map_hover_width: float = 1.5
    selection_width: float = 1.5
    head_button_border: int = 2
    # Cells and marks.
    heatmap_max_cell: float = 40.0
    lens_cell_w: int = 74
    lens_cell_h: int = 40
    mask_cell_h: int = 24
    mask_title_w: int = 64  # the row names left of the masking lab's cells
    table_row_h: int = 22
    map_point: float = 5.0
    map_selected_point: float = 10.0
    map_current_point: float = 16.0
    map_hover_point: float = 12.0
    map_legend_dot: int = 14
    plot_symbol: int = 8  # markers on the layer plots
    plot_small_symbol: int = 7
    live_plot_symbol: int = 6
    head_view_row_min: float = 18.0
    # Fixed sizes of controls.
    plot_axis_w: int = 56
    plot_legend_margin: int = 8  # the legend of overlaid runs, from the top right corner of its plot
    progress_bar_h: int = 14
    status_progress_w: int = 170
    status_progress_h: int = 16
    job_strip_w: int = 240
    message_icon: int = 18
    eta_label_w: int = 260
    form_column_w: int = 380  # the Pre-train form's scroll area
    lab_column_min_w: int = 290  # the masking lab's left column
    lab_tables_max_h: int = 230
    lab_grid_max_h: int = 240
    head_view_min_h: int = 120
    walkthrough_figures_min_h: int = 190  # the attention figures above the open step-by-step panel
    lines_label_w: int = 60
    prediction_box_min_w: int = 360
    prediction_box_max_w: int = 520
    colour_bar_w: int = 90
    colour_bar_h: int = 12
    weight_bar_w: int = 36  # scalar-mix weights
    weight_bar_h: int = 8
    weight_label_w: int = 38
    corpus_list_max_h: int = 92
    paste_box_max_h: int = 80
    recent_list_max_h: int = 170
    about_start_h: int = 130  # the About panel's height the first time (then the user's, from its splitter)
    about_min_h: int = 48
    hover_context_min_h: int = 38
    dock_start_w: int = 280  # the model dock's width the first time
    side_column_min_w: int = 260  # the Embeddings tab's control column, at first
    side_panel_min_w: int = 220  # its neighbours/selection/layers/sentences panel (tables scroll)
    layer_plot_min_h: int = 220
    layer_bars_min_h: int = 140  # the Heads tab's per-layer bars, under its two maps
    sentence_list_min_w: int = 120
    feature_histogram_min_h: int = 100  # the Features tab's activation histogram
    feature_histogram_max_h: int = 160
    study_list_min_w: int = 150  # the Runs tab's Studies list
    study_figure_min: int = 160  # its figure, each side
    smooth_slider_w: int = 120
    prob_column_w: int = 150
    min_column_w: int = 36
    plugins_dialog_size: tuple[int, int] = (960, 440)
    window_size: tuple[int, int] = (1180, 760)
    screenshot_size: tuple[int, int] = (1100, 700)
    text_line_h: float = 3.2  # the text box's height: lines * this + text_box_pad
    text_box_pad: int = 12
    # Layout spacing between neighbours and margins (left, top, right, bottom) around contents.
    tight_spacing: int = 2
    compact_spacing: int = 3  # head buttons, the map's controls
    row_spacing: int = 4  # rows of a form or a list of controls
    section_spacing: int = 6  # sections of a view
    group_spacing: int = 8  # groups of controls side by side
    wide_spacing: int = 10
    rich_column_gap: int = 24  # between side-by-side columns of a rich-text table (steering's two sides)
    view_margins: tuple[int, int, int, int] = (8, 8, 8, 4)  # around a tab's contents
    panel_margins: tuple[int, int, int, int] = (4, 4, 4, 4)
    group_margins: tuple[int, int, int, int] = (8, 4, 8, 8)  # inside a group box
    form_margins: tuple[int, int, int, int] = (8, 6, 8, 6)
    dock_margins: tuple[int, int, int, int] = (8, 8, 8, 8)
    inset_margins: tuple[int, int, int, int] = (6, 6, 6, 6)
    window_margins: tuple[int, int, int, int] = (10, 8, 10, 6)  # the window's input column
    scroll_column_margins: tuple[int, int, int, int] = (0, 0, 6, 0)  # room for a scroll bar
    form_scroll_margins: tuple[int, int, int, int] = (0, 0, 4, 0)
    side_column_margins: tuple[int, int, int, int] = (6, 0, 0, 0)
    status_margins: tuple[int, int, int, int] = (6, 0, 6, 0)
    message_margins: tuple[int, int, int, int] = (10, 6, 6, 6)
    undo_bar_margins: tuple[int, int, int, int] = (10, 4, 6, 4)
    cell_margins: tuple[int, int, int, int] = (4, 2, 4, 2)  # a widget inside a table cell
    check_indicator: int = 14  # a check box's or radio button's box (grows with F5, as the text does)
    # Style-sheet boxes: border width, (vertical, horizontal) padding and corner radii.
    hairline: int = 1
    notice_padding: tuple[int, int] = (6, 9)
    banner_padding: tuple[int, int] = (5, 8)  # the truncation banner
    form_error_padding: tuple[int, int] = (4, 6)
    box_padding: tuple[int, int] = (4, 8)  # the map's hover context
    legend_padding: tuple[int, int] = (2, 6)  # the map's legend
    tab_padding: tuple[int, int] = (5, 14)  # a tab of the tab bar
    infill_padding: int = 8
    radius: int = 4  # notices, banners, the infill output
    message_radius: int = 5
    group_radius: int = 6
    # Fine-tune tab.
    diagram_min_w: int = 260
    diagram_line_width: float = 1.5
    bench_table_max_h: int = 170
    template_edit_max_h: int = 140  # the instruct page's chat-template box
    bench_figure_w: int = 1100  # the bench's columns exported as bar charts
    bench_figure_h: int = 640
    bench_bars_label_w: int = 72  # the method names left of the bench figure's bars
    finetune_form_w: int = 400


_GROUPS = ("colours", "fonts", "metrics")


@dataclass(frozen=True)
class Tokens:
    colours: Colours = field(default_factory=Colours)
    fonts: Fonts = field(default_factory=Fonts)
    metrics: Metrics = field(default_factory=Metrics)

    def replace(self, **changes) -> "Tokens":
        """A copy with the named tokens changed, whichever group holds them."""
        per_group: dict[str, dict] = {g: {} for g in _GROUPS}
        for name, value in changes.items():
            group = _GROUP_OF.get(name)
            if group is None:
                raise TypeError(f"no theme token named {name!r}")
            per_group[group][name] = value
        return Tokens(**{g: dataclasses.replace(getattr(self, g), **per_group[g]) for g in _GROUPS})


def _group_of() -> dict[str, str]:
    out: dict[str, str] = {}
    for group, cls in zip(_GROUPS, (Colours, Fonts, Metrics)):
        for f in fields(cls):
            assert f.name not in out, f"theme token {f.name!r} is in two groups"
            out[f.name] = group
    return out


_GROUP_OF = _group_of()
DEFAULT = Tokens()


# ------------------------------------------------------------- presentation
OKABE_ITO = ("#e69f00", "#56b4e9", "#009e73", "#0072b2", "#d55e00", "#cc79a7", "#f0e442", "#000000")
"""Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish green, blue, vermillion, reddish
purple, yellow, black (yellow and black last: yellow is faint on white, black is the ink)."""
VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")
"""Matplotlib's viridis at nine evenly spaced points (dark purple to yellow): perceptually uniform and
readable in grey and by colour-blind viewers."""
PRESENTATION_SCALE = 1.8  # sizes in pixels grow with the font (20 pt against the default 10-11 pt)
_UNSCALED = {"window_size", "screenshot_size", "raw_curve_alpha", "text_line_h", "cell_text_contrast"}  # sizes of the window, ratios


def _scaled_metrics(metrics: Metrics, factor: float) -> dict:
    """Every size of ``metrics`` (pixels) times ``factor``, ints kept ints (line widths are set on their own)."""
    out = {}
    for f in fields(Metrics):
        value = getattr(metrics, f.name)
        if f.name in _UNSCALED:
            continue
        if isinstance(value, tuple):
            out[f.name] = tuple(round(v * factor) for v in value)
        elif isinstance(value, int):
            out[f.name] = round(value * factor)
        elif isinstance(value, float):
            out[f.name] = round(value * factor, 1)
    return out


_BLACK, _WHITE = "#000000", "#ffffff"
_PRESENTATION_CHANGES = dict(
    # Lines: at least 3 px (frames, outlines, attention lines, curves).
    hairline=3, chip_border_width=3.0, hover_width=5.0, head_line_width=3.0, head_line_extra_width=6.0,
    plot_line_width=5.0, plot_thin_line_width=4.0, raw_curve_width=3.0, raw_curve_alpha=70, map_selected_width=3.0,
    map_current_width=5.0, map_hover_width=4.0, selection_width=3.0, head_button_border=3, diagram_line_width=3.0,
    # Fonts: 20 pt, nothing smaller.
    text_line_h=1.6,  # the text box: fewer lines of the bigger font (lecture sentences are short)
    base_pt=20.0, token_delta=2.0, token_id_delta=0.0, small_delta=0.0, lens_cell_delta=0.0,
    live_plot_title_delta=0.0, infill_delta=4.0, run_legend_delta=0.0,
    tab_padding=(4, 5),  # every tab in view (named in full from 1280 × 720 up)
    cell_text_contrast=7.0,  # numbers on viridis cells: WCAG AAA, a plate behind them where the cell is mid-range
    # Black on white; greys dark enough for 7:1 on every background they meet.
    window_bg=_WHITE, base_bg=_WHITE, alternate_bg="#f0f0f0", highlight="#005a8c", tooltip_bg=_WHITE,
    tooltip_ink=_BLACK, splitter="#4d4d4d", dock_title_bg="#e6e6e6", group_border="#4d4d4d",
    section_title_ink=_BLACK, summary_ink="#262626", about_ink=_BLACK, code_bg="#eeeeee",
    ink=_BLACK, ink_on_dark=_WHITE, muted_ink="#333333", hint_ink="#333333", token_id_ink="#333333",
    label_ink=_BLACK, hover="#d55e00", frame=_BLACK, rule="#4d4d4d",
    segment_a=Chip("#cfe6f7", "#0072b2", _BLACK), segment_b=Chip("#fbe1bd", "#e69f00", _BLACK),
    special_token=Chip("#e6e6e6", "#4d4d4d", _BLACK), subword_separator="#0072b2",
    error=Chip("#fbd9c6", "#d55e00", _BLACK), info=Chip("#d6ebf8", "#0072b2", _BLACK),
    warning=Chip("#fbf1b5", "#e69f00", _BLACK),
    head_colors=OKABE_ITO, heatmap_stops=VIRIDIS, prob_bar="#0072b2", prob_bar_track="#e6e6e6",
    mask_kinds=MaskKinds(
        unchanged=Chip(_WHITE, "#4d4d4d", _BLACK), masked=Chip("#f8d68c", "#e69f00", _BLACK),
        random=Chip("#f1c9de", "#cc79a7", _BLACK), kept=Chip("#b7e4d3", "#009e73", _BLACK),
        deleted=Chip("#f6c7ab", "#d55e00", _BLACK), inserted=Chip("#c8e6f8", "#56b4e9", _BLACK),
        moved=Chip("#b9d5ea", "#0072b2", _BLACK), sentinel=Chip("#f8f3bd", "#8c8000", _BLACK),
        ignored=Chip("#f0f0f0", "#999999", "#333333"), hit=Chip("#b7e4d3", "#009e73", _BLACK),
        miss=Chip("#f6c7ab", "#d55e00", _BLACK)),
    train_loss_curve="#0072b2", valid_loss_curve="#d55e00", lr_curve="#009e73", speed_curve="#cc79a7",
    run_curves=OKABE_ITO, run_running="#003f66", run_queued="#333333", run_finished="#004530",
    run_failed="#6e140d", run_cancelled="#4d3900", run_interrupted="#662600", config_diff_bg="#fbf1b5",
    plugin_ok="#004530", plugin_error="#6e140d", plugin_disabled="#333333", plugin_unknown=_BLACK,
    group_colors=OKABE_ITO, other_group="#999999", map_axis="#333333", plot_axis_ink=_BLACK, map_selected_outline=_BLACK,
    map_current_outline="#d55e00", map_hover_outline="#0072b2", selection_outline="#0072b2",
    accuracy_curve="#0072b2", silhouette_curve="#d55e00", anisotropy_curve="#cc79a7", plot_legend_ink=_BLACK,
    plot_legend_bg=(255, 255, 255, 235), neighbour_tie_bg="#fbf1b5", word_highlight_bg="#f8d68c",
    text_highlight_bg="#fbf1b5",
)
PRESENTATION = DEFAULT.replace(**{**_scaled_metrics(DEFAULT.metrics, PRESENTATION_SCALE), **_PRESENTATION_CHANGES})

# ------------------------------------------------- presentation by screen height
HALL_PT, HALL_HEIGHT = 20.0, 1080  # a lecture hall reads 20 pt on a 1080-pixel-high projection
MIN_PRESENTATION_PT, MAX_PRESENTATION_PT = 12.0, 40.0
_FONT_DELTAS = ("token_delta", "token_id_delta", "small_delta", "lens_cell_delta", "live_plot_title_delta",
                "infill_delta", "run_legend_delta", "lecture_caption_delta")
_PRESENTATION_SETS: dict[float, Tokens] = {HALL_PT: PRESENTATION}


def presentation_pt(screen_height: int | float | None) -> float:
    """The presentation font for a screen ``screen_height`` pixels high (its available height): 20 pt at
    1080 px and proportional to the height (the same size on the wall), in half points, within 12-40 pt;
    20 pt when the height is unknown."""
    if not screen_height or screen_height <= 0:
        return HALL_PT
    pt = HALL_PT * float(screen_height) / HALL_HEIGHT
    return min(MAX_PRESENTATION_PT, max(MIN_PRESENTATION_PT, round(pt * 2) / 2))


def presentation_tokens(base_pt: float = HALL_PT) -> Tokens:
    """``PRESENTATION`` with its fonts at ``base_pt`` and every size in pixels scaled with them (line widths
    and colours kept); ``presentation_tokens(20)`` is ``PRESENTATION`` itself. One set per size, kept."""
    base_pt = float(base_pt)
    tokens = _PRESENTATION_SETS.get(base_pt)
    if tokens is None:
        ratio = base_pt / HALL_PT
        scaled = {name: value for name, value in _scaled_metrics(DEFAULT.metrics, PRESENTATION_SCALE * ratio).items()
                  if name not in _PRESENTATION_CHANGES}  # line widths stay thick
        deltas = {name: round(getattr(PRESENTATION.fonts, name) * ratio * 2) / 2 for name in _FONT_DELTAS}
        tokens = _PRESENTATION_SETS[base_pt] = PRESENTATION.replace(**scaled, **deltas, base_pt=base_pt)
    return tokens


def is_presentation(tokens: Tokens) -> bool:
    """Whether ``tokens`` is one of the presentation sets (any size)."""
    return any(tokens is t for t in _PRESENTATION_SETS.values())
